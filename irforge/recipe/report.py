"""The closing report of a recipe run: stages, yield per method, scores, where to look next."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from irforge.eval.verdict import truth_lines
from irforge.recipe.run import RunReport
from irforge.steps.kept_set import folder_kept_set
from irforge.steps.yields import folder_yield


def _count(path: Path) -> int:
    if not path.is_file():
        return 0
    with path.open(encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip())


def _scores(folder: Path) -> list[tuple[str, dict[str, float]]]:
    results = folder / "eval" / "results.json"
    if not results.is_file():
        return []
    data: dict[str, Any] = json.loads(results.read_text(encoding="utf-8"))
    return [(system["name"], system["means"]) for system in data.get("systems", [])]


def write_report(report: RunReport, methods: list[str]) -> Path:
    """``BENCH/report.md``: what ran, what each method kept, and how retrievers scored."""
    out = report.out
    lines = [f"# irforge recipe run: {out.name}", "", "## Verdict (read this before any score)",
             ""]
    for method in methods:
        folder = out / method
        truth = truth_lines(folder) if (folder / "queries.jsonl").is_file() else []
        lines += [f"- {line}" for line in truth] or [f"- {method}: no queries written"]
    lines += ["", "## Stages", "",
             "| stage | status | detail |", "|---|---|---|"]
    lines += [f"| {r.name} | {r.status} | {r.detail.splitlines()[0] if r.detail else ''} |"
              for r in report.results]
    for method in methods:
        folder = out / method
        lines += ["", f"## {method}", "",
                  f"{_count(folder / 'queries.jsonl')} queries, "
                  f"{max(_count(folder / 'qrels' / 'test.tsv') - 1, 0)} qrels, "
                  f"{_count(folder / 'failures.jsonl')} failures logged "
                  f"(`{method}/failures.jsonl`).", ""]
        table = folder_yield(folder)
        if table.steps:
            lines += ["Yield:", "", table.markdown(), ""]
        kept = folder_kept_set(folder)
        if any(kept.written.values()):
            lines += ["What the model wrote and what the checks kept (a kept set tilted "
                      "towards one length or form favours some retrievers):", "",
                      kept.markdown(), ""]
        scores = _scores(folder)
        if scores:
            metrics = sorted({m for _, means in scores for m in means})
            lines += ["Scores (`" + method + "/eval/report.md` has the details):", "",
                      "| system | " + " | ".join(metrics) + " |",
                      "|---|" + "---:|" * len(metrics)]
            lines += [f"| {name} | " + " | ".join(f"{means.get(m, float('nan')):.4f}"
                                                  for m in metrics) + " |"
                      for name, means in scores]
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
