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
    each system's top-k and per-query scores; filters, sort, search, pages. It opens on a
    verdict per folder (judge trust, rejections, labels, systems); folders that kept nothing
    are listed there with why (the page is still written: exit 0)."""
    from irforge.cli.options import require_bench_dir
    from irforge.viewer.render import write_viewer

    path, data = write_viewer(require_bench_dir(bench_dir), out)
    summary = {"html": path, "queries": len(data["queries"]), "failures": len(data["failures"]),
               "raters": data["raters"], "yield_steps": len(data["yield"]),
               "folders": [f["label"] for f in data["folders"]], "systems": data["systems"],
               "empty": data["empty"]}
    empty = "".join(f"; {row['label']} is empty: {row['why']}" for row in data["empty"])
    emit(summary, f"wrote {path}: {summary['queries']} queries in {len(summary['folders'])} "
                  f"folder(s), {len(data['systems'])} system(s), {len(data['raters'])} "
                  f"raters, {summary['failures']} failures{empty}; open it in a browser (no "
                  "server needed)", as_json)
