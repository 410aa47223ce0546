"""CLI verbs: ``irforge prompts list``, ``irforge prompts show NAME`` and
``irforge prompts lint [DIR]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.options import PromptsDirOption


def prompts_list(prompts_dir: PromptsDirOption = None) -> None:
    """Every template id with its variables, content hash, source and paper section."""
    from irforge.prompts.registry import TEMPLATES_DIR, list_templates

    for template in list_templates(prompts_dir):
        source = "shipped" if template.path.is_relative_to(TEMPLATES_DIR) else "override"
        typer.echo(f"{template.name:<32} {template.hash[:12]}  {source:<8} "
                   f"vars={','.join(template.variables)}  paper: {template.paper}")


def prompts_show(
    name: Annotated[str, typer.Argument(help="Template id, e.g. llm.try")],
    var: Annotated[list[str] | None, typer.Option(
        "--var", help="Override an example input: --var name=value (repeatable).")] = None,
    prompts_dir: PromptsDirOption = None,
) -> None:
    """Render one template with its example inputs (or --var values) and print the messages."""
    from irforge.core.errors import IrforgeError
    from irforge.prompts import get_template

    template = get_template(name, prompts_dir)
    values = dict(template.example)
    for pair in var or []:
        key, sep, value = pair.partition("=")
        if not sep:
            raise IrforgeError(f"--var {pair!r}: expected name=value")
        values[key] = value
    typer.echo(f"# {template.name}  sha256={template.hash}")
    typer.echo(f"# file: {template.path}")
    typer.echo(f"# paper: {template.paper}")
    typer.echo(f"# {template.description}")
    typer.echo(f"# variables: {', '.join(template.variables)}")
    for message in template.render(**values):
        typer.echo(f"\n--- {message['role']} ---\n{message['content']}")


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
