"""What the command line prints: global verbosity (``--quiet``/``--verbose``) and ``--json``.

Verbs print their summary through :func:`emit`, so ``--json`` gives one machine-readable
object on stdout; ``--quiet`` turns progress bars off (errors are always printed).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from irforge.core.verbosity import VERBOSITY_ENV, quiet, set_verbosity, verbosity

__all__ = ["VERBOSITY_ENV", "JsonOption", "emit", "quiet", "set_verbosity", "table_console",
           "verbosity"]


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


PLAIN_WIDTH = 240
"""Width of tables written to a pipe or a log (no terminal): wide enough that no column is
squashed or folded; ``COLUMNS`` overrides it."""


def table_console(stderr: bool = False) -> Any:
    """A rich Console for tables: the terminal's width on a TTY; with no TTY (logs, CI, pipes)
    ``COLUMNS`` or :data:`PLAIN_WIDTH`, without colour codes."""
    from rich.console import Console

    console = Console(stderr=stderr)
    if console.is_terminal:
        return console
    width = int(os.environ["COLUMNS"]) if os.environ.get("COLUMNS", "").isdigit() else PLAIN_WIDTH
    return Console(stderr=stderr, width=width, no_color=True, highlight=False)
