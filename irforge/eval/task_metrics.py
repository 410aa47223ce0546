"""The papers' task metrics read from the method folders a build writes beside the BEIR files.

- ``multicon/task1.jsonl`` -> WR_k per k; ``task2.jsonl`` -> WR_{k,k-1}; ``task3.jsonl`` ->
  Flip Rate (docs/multicon.md describes the rows);
- ``logical/negation_labels.jsonl`` -> LSNC@K for queries with negation (docs/logical.md).

Each returns plain numbers for the results JSON; rows that name documents or queries the run
lacks are errors (pairwise metrics need every candidate scored).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from irforge.core.jsonl import iter_jsonl
from irforge.eval.metrics import comlq, multicon
from irforge.eval.metrics.ranking import RunDict
from irforge.eval.metrics.ranks import mean

Scorer = Callable[[list[str]], RunDict]


def task_rows(path: Path) -> list[dict[str, Any]]:
    return [row for _, row in iter_jsonl(path)] if path.is_file() else []


def multicon_task_queries(bench_dir: Path) -> set[str]:
    """Query ids the MultiConIR tasks need scored over their whole candidate sets."""
    folder = Path(bench_dir) / "multicon"
    ids = {row["query_id"] for name in ("task1", "task2") for row in
           task_rows(folder / f"{name}.jsonl")}
    for row in task_rows(folder / "task3.jsonl"):
        ids.update((row["instruction_query"], row["descriptive_query"]))
    return ids


def multicon_metrics(bench_dir: Path, run: RunDict) -> dict[str, Any]:
    """WR_k by k, WR_{k,k-1} by k, Flip Rate; empty when the bench has no MultiConIR tasks."""
    folder = Path(bench_dir) / "multicon"
    out: dict[str, Any] = {}
    task1 = task_rows(folder / "task1.jsonl")
    if task1:
        by_k: dict[int, dict[str, tuple[str, str]]] = {}
        for row in task1:
            by_k.setdefault(int(row["k"]), {})[row["query_id"]] = (row["positive"],
                                                                  row["hard_negative"])
        out["win_rate_by_k"] = {k: multicon.win_rate(run, pairs)
                                for k, pairs in sorted(by_k.items())}
        out["win_rate_queries_by_k"] = {k: len(pairs) for k, pairs in sorted(by_k.items())}
    ladders = {row["query_id"]: [c["doc_id"] for c in sorted(row["candidates"],
                                                             key=lambda c: c["satisfied"])]
               for row in task_rows(folder / "task2.jsonl")}
    if ladders:
        out["adjacent_win_rate"] = multicon.adjacent_win_rates(run, ladders)
    flips = []
    for row in task_rows(folder / "task3.jsonl"):
        ladder = [c["doc_id"] for c in sorted(row["candidates"], key=lambda c: c["satisfied"])]
        inst, desc = row["instruction_query"], row["descriptive_query"]
        for k in range(1, len(ladder)):
            pair = {"q": (ladder[k], ladder[k - 1])}
            flips.append(multicon.flip_rate({"q": run[inst]}, {"q": run[desc]}, pair))
    if flips:
        out["flip_rate"] = sum(flips) / len(flips)
    return out


def negation_violations(bench_dir: Path) -> dict[str, set[str]]:
    """V(d) = 1 documents per negation query, from ``logical/negation_labels.jsonl``."""
    out: dict[str, set[str]] = {}
    for row in task_rows(Path(bench_dir) / "logical" / "negation_labels.jsonl"):
        violating = out.setdefault(str(row["query_id"]), set())
        if int(row.get("violates", 0)):
            violating.add(str(row["doc_id"]))
    return out


def lsnc_metrics(bench_dir: Path, run: RunDict, k: int = 100) -> dict[str, Any]:
    """Mean LSNC@K over the labelled negation queries (empty without labels)."""
    violations = negation_violations(bench_dir)
    if not violations:
        return {}
    values = comlq.lsnc(run, violations, k)
    return {f"lsnc@{k}": mean(values), "lsnc_queries": len(values),
            "lsnc_empty_runs": comlq.empty_runs(run, violations)}
