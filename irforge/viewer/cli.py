"""``irforge view BENCH``: write the static HTML explorer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.output import JsonOption, emit


def view_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder.")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="HTML file to write (default BENCH/view/index.html).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Write a static HTML explorer: queries, judged passages, labels, failures and yield."""
    from irforge.viewer.render import write_viewer

    path, data = write_viewer(bench_dir, out)
    summary = {"html": path, "queries": len(data["queries"]), "failures": len(data["failures"]),
               "raters": data["raters"], "yield_steps": len(data["yield"])}
    emit(summary, f"wrote {path}: {summary['queries']} queries, {len(data['raters'])} raters, "
                  f"{summary['failures']} failures; open it in a browser (no server needed)",
         as_json)
