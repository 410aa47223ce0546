"""CLI verb ``irforge prompts lint [DIR]``: every template checked against the steps that read
its answers (the methods' output models, validators and token limits)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.options import PromptsDirOption


def prompts_lint(
    folder: Annotated[Path | None, typer.Argument(
        help="A prompt folder (<group>/<name>.yaml) to lint; default: the built-in templates "
             "(with --prompts-dir overrides).")] = None,
    prompts_dir: PromptsDirOption = None,
) -> None:
    """Check templates against the code that reads their answers: worked examples fit the
    output schema and the step's validators, max_tokens covers the words asked for, labels
    hold what they say, no unchecked claim about an input. Exits 1 on any problem."""
    from irforge.core.errors import IrforgeError
    from irforge.methods.prompt_lint import lint_prompts, summary
    from irforge.prompts.registry import folder_template_names, list_templates

    if folder is not None and not folder.is_dir():
        raise IrforgeError(f"prompt folder {folder} does not exist (give a folder of "
                           "<group>/<name>.yaml templates)")
    chosen = folder if folder is not None else prompts_dir
    count = (len(folder_template_names(folder)) if folder is not None
             else len(list_templates(prompts_dir)))
    if folder is not None and count == 0:
        raise IrforgeError(f"prompt folder {folder} holds no <group>/<name>.yaml template")
    findings = lint_prompts(chosen, only_folder=folder is not None)
    for finding in findings:
        typer.echo(finding.line())
    typer.echo(summary(findings, count))
    if findings:
        raise typer.Exit(1)
