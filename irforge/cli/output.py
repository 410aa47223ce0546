"""What the command line prints: global verbosity (``--quiet``/``--verbose``) and ``--json``.

Verbs print their summary through :func:`emit`, so ``--json`` gives one machine-readable
object on stdout; ``--quiet`` turns progress bars off (errors are always printed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

JsonOption = Annotated[bool, typer.Option(
    "--json", help="Print the summary as one JSON object on stdout (for scripts).")]


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    return value


def emit(summary: Mapping[str, Any], text: str, as_json: bool) -> None:
    """Print ``summary`` as JSON, or the human ``text`` line."""
    if as_json:
        typer.echo(json.dumps(_plain(summary), sort_keys=True, ensure_ascii=False, default=str))
    else:
        typer.echo(text)
