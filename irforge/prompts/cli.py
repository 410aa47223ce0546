"""CLI verbs: ``irforge prompts list`` and ``irforge prompts show NAME`` (``irforge prompts lint``
lives in ``irforge/methods/cli.py``: it reads every method's steps)."""

from __future__ import annotations

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
