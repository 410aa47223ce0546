"""``irforge view BENCH``: write the static HTML explorer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.output import JsonOption, emit


def view_command(
    bench_dir: Annotated[Path, typer.Argument(
        help="Benchmark folder, or a run folder (every method folder in it).")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="HTML file to write (default BENCH/view/index.html); for a run "
        "folder, the folder of the pages (default: each method's view/ and RUN/view/).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Write a static HTML explorer: queries, judged passages, labels, failures and yield.

    On a run folder: one page per method folder and an index page linking them.
    """
    from irforge.viewer.collection import write_collection_viewer

    index, outcomes = write_collection_viewer(bench_dir, out)
    pages = [page for _, page in outcomes.done]
    summaries = {page.name: {"html": page.html, "queries": len(page.data["queries"]),
                             "failures": len(page.data["failures"]),
                             "raters": page.data["raters"], "yield_steps": len(page.data["yield"])}
                 for page in pages}
    lines = [f"wrote {s['html']}: {s['queries']} queries, {len(s['raters'])} raters, "
             f"{s['failures']} failures" for s in summaries.values()]
    if index is None:
        emit(next(iter(summaries.values())),
             lines[0] + "; open it in a browser (no server needed)", as_json)
        return
    emit({"index": index, "benchmarks": summaries},
         "\n".join([*lines, f"wrote {index}: {len(pages)} benchmarks; open it in a browser "
                             "(no server needed)"]), as_json)
    outcomes.raise_if_failed()
