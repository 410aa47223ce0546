"""What ``irforge check FOLDER`` prints and its options: one benchmark folder, or every one of
a run's collection, checked with the same validators generation runs (docs/generation.md,
"Validators"). The verb itself is ``methods/check_cli.py`` (it may add the LLM answer judge
of ``generators/answer_judge``, which this package does not import)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

TargetK = Annotated[int | None, typer.Option(
    "--target-k", min=1, help="Relax the retrievability depth: a query's relevant passage must "
    "rank within this top k (default: scaled to the corpus size). Printed in the report.")]
Dense = Annotated[bool, typer.Option(
    "--dense", help="Also try the dense retriever (embedded MiniLM) for retrievability.")]
PromptsDir = Annotated[Path | None, typer.Option(
    "--prompts-dir", help="A user prompt folder whose worked examples count as echoes too "
    "(default: IRFORGE_PROMPTS_DIR).")]


def _counts(report) -> str:
    return ", ".join(f"{key}={value}" for key, value in sorted(report.counts.items()))


def _one(report, relaxed: bool) -> dict:
    from irforge.check.folder import problem_row

    audit = report.audit
    return {"folder": report.root, "ok": report.ok, "counts": dict(report.counts),
            "invalid_queries": sorted(audit.invalid),
            "rejected_by_validator": dict(audit.by_validator.most_common()),
            "target_k": audit.target_k, "target_k_relaxed": relaxed,
            "target_ranks": audit.ranks,
            "problems": [problem_row(problem) for problem in report.problems]}


def report_json(root: Path, reports, relaxed: bool) -> dict:
    if len(reports) == 1 and reports[0][1].root == Path(root):
        return _one(reports[0][1], relaxed)
    return {"folder": root, "ok": all(r.ok for _, r in reports),
            "benchmarks": {name: _one(report, relaxed) for name, report in reports}}


def _depth(report, relaxed: bool, retrievers: tuple[str, ...]) -> str:
    k = report.audit.target_k
    if not k:
        return ""
    how = "set by --target-k" if relaxed else "scaled to the corpus"
    return f"target depth top {k} ({how}), retrievers {'+'.join(retrievers)}"


def report_lines(root: Path, reports, relaxed: bool, retrievers: tuple[str, ...]) -> list[str]:
    lines = []
    for _, report in reports:
        depth = _depth(report, relaxed, retrievers)
        if report.ok:
            lines.append(f"OK {report.root}: {_counts(report)}" + (f"; {depth}" if depth else ""))
            continue
        lines += [f"ERROR {problem}" for problem in report.problems]
        audit = report.audit
        if audit.by_validator:
            found = ", ".join(f"{name} {n}" for name, n in audit.by_validator.most_common())
            lines.append(f"{len(audit.invalid)} invalid quer(y/ies); findings by validator: "
                         f"{found}")
        if depth:
            lines.append(depth)
        lines.append(f"{len(report.problems)} problem(s) in {report.root} ({_counts(report)})")
    if len(reports) > 1 or reports[0][1].root != Path(root):
        bad = [name for name, report in reports if not report.ok]
        lines.append(f"{len(reports) - len(bad)} of {len(reports)} benchmark folders in {root} "
                     "OK" + (f"; with problems: {', '.join(bad)}" if bad else ""))
    return lines
