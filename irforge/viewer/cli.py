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
    """Write a static HTML explorer of a benchmark or a whole run folder: per query the
    positive and hard-negative passages (changed words marked), labels, validator verdicts,
    each system's top-k and per-query scores; filters, sort, search, pages."""
    from irforge.cli.options import require_bench_dir
    from irforge.viewer.render import write_viewer

    path, data = write_viewer(require_bench_dir(bench_dir), out)
    summary = {"html": path, "queries": len(data["queries"]), "failures": len(data["failures"]),
               "raters": data["raters"], "yield_steps": len(data["yield"]),
               "folders": [f["label"] for f in data["folders"]], "systems": data["systems"]}
    emit(summary, f"wrote {path}: {summary['queries']} queries in {len(summary['folders'])} "
                  f"folder(s), {len(data['systems'])} system(s), {len(data['raters'])} "
                  f"raters, {summary['failures']} failures; open it in a browser (no server "
                  "needed)", as_json)
    if data["empty"]:  # the page shows the rest; a folder that kept nothing is still an error
        from irforge.core.errors import EmptyResultError

        raise EmptyResultError("; ".join(
            f"{label}: no queries to show (nothing kept: see its failures.jsonl and yield)"
            for label in data["empty"]))
