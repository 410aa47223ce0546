"""``irforge check FOLDER``: validate one benchmark folder, or every one of a run's collection."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.output import JsonOption, emit


def check(
    bench_dir: Annotated[Path, typer.Argument(
        help="Benchmark folder to validate, or a run folder (every method folder in it).")],
    as_json: JsonOption = False,
) -> None:
    """Validate a benchmark folder and list every problem found, not only the first."""
    from irforge.check.folder import check_folders

    reports = check_folders(bench_dir)
    ok = all(report.ok for _, report in reports)
    if as_json:
        emit(_json(bench_dir, reports), "", as_json=True)
    else:
        for line in _lines(bench_dir, reports):
            typer.echo(line)
    if not ok:
        raise typer.Exit(1)


def _counts(report) -> str:
    return ", ".join(f"{key}={value}" for key, value in sorted(report.counts.items()))


def _json(root: Path, reports) -> dict:
    def one(report) -> dict:
        return {"folder": report.root, "ok": report.ok, "counts": dict(report.counts),
                "problems": [str(problem) for problem in report.problems]}

    if len(reports) == 1 and reports[0][1].root == Path(root):
        return one(reports[0][1])
    return {"folder": root, "ok": all(r.ok for _, r in reports),
            "benchmarks": {name: one(report) for name, report in reports}}


def _lines(root: Path, reports) -> list[str]:
    lines = []
    for _, report in reports:
        if report.ok:
            lines.append(f"OK {report.root}: {_counts(report)}")
            continue
        lines += [f"ERROR {problem}" for problem in report.problems]
        lines.append(f"{len(report.problems)} problem(s) in {report.root} ({_counts(report)})")
    if len(reports) > 1 or reports[0][1].root != Path(root):
        bad = [name for name, report in reports if not report.ok]
        lines.append(f"{len(reports) - len(bad)} of {len(reports)} benchmark folders in {root} "
                     "OK" + (f"; with problems: {', '.join(bad)}" if bad else ""))
    return lines
