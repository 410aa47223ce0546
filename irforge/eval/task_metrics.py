"""The papers' task metrics read from the method files a build writes beside the BEIR files.

Files are found through each method's Layout (irforge/generators/<method>/layout.py):

- MultiConIR ``task1`` -> WR_k per k; ``task2`` -> WR_{k,k-1}; ``task3`` -> Flip Rate
  (docs/multicon.md describes the rows);
- ComLQ ``negation_labels`` -> LSNC@K for queries with negation (docs/logical.md).

The indicators themselves are computed once, in :mod:`irforge.eval.metrics.multicon`; the
summary here and the ``--metric`` registry (``eval/metrics/papers.py``) both average them.
Rows that name documents or queries the run lacks are errors (pairwise metrics need every
candidate scored).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from irforge.core.jsonl import iter_jsonl
from irforge.core.layouts.logical import LAYOUT as LOGICAL
from irforge.core.layouts.multicon import LAYOUT as MULTICON
from irforge.eval.metrics import comlq, multicon
from irforge.eval.metrics.ranking import RunDict
from irforge.eval.metrics.ranks import mean

Scorer = Callable[[list[str]], RunDict]


def task_rows(path: Path) -> list[dict[str, Any]]:
    return [row for _, row in iter_jsonl(path)] if path.is_file() else []


def multicon_rows(bench_dir: Path, task: str) -> list[dict[str, Any]]:
    """The rows of MultiConIR ``task1``, ``task2`` or ``task3`` (none when absent)."""
    return task_rows(MULTICON.path(bench_dir, task))


def ladder(row: Mapping[str, Any]) -> list[str]:
    """A row's candidates ordered by conditions satisfied: ``ladder[j]`` satisfies j."""
    return [c["doc_id"] for c in sorted(row["candidates"], key=lambda c: c["satisfied"])]


def win_inputs(bench_dir: Path, k: int | None = None) -> list[tuple[str, int, str, str]]:
    """``(query_id, k, positive, hard_negative)`` of every task-1 row (of one k if given)."""
    return [(row["query_id"], int(row["k"]), row["positive"], row["hard_negative"])
            for row in multicon_rows(bench_dir, "task1") if k is None or int(row["k"]) == k]


def ladders(bench_dir: Path) -> dict[str, list[str]]:
    """Task-2 ladders by query_10 id."""
    return {row["query_id"]: ladder(row) for row in multicon_rows(bench_dir, "task2")}


def flip_inputs(bench_dir: Path) -> list[tuple[str, str, list[str]]]:
    """``(instruction_query, descriptive_query, ladder)`` of every task-3 row."""
    return [(row["instruction_query"], row["descriptive_query"], ladder(row))
            for row in multicon_rows(bench_dir, "task3")]


def multicon_task_queries(bench_dir: Path) -> set[str]:
    """Query ids the MultiConIR tasks need scored over their whole candidate sets."""
    ids = {query_id for query_id, *_ in win_inputs(bench_dir)} | set(ladders(bench_dir))
    for inst, desc, _ in flip_inputs(bench_dir):
        ids.update((inst, desc))
    return ids


def multicon_metrics(bench_dir: Path, run: RunDict) -> dict[str, Any]:
    """WR_k by k, WR_{k,k-1} by k, Flip Rate; empty when the bench has no MultiConIR tasks."""
    out: dict[str, Any] = {}
    wins = multicon.win_items(run, win_inputs(bench_dir))
    if wins:
        out["win_rate_by_k"] = {k: mean(items) for k, items in wins.items()}
        out["win_rate_queries_by_k"] = {k: len(items) for k, items in wins.items()}
    adjacent = multicon.adjacent_items(run, ladders(bench_dir))
    if adjacent:
        out["adjacent_win_rate"] = {k: mean(items)
                                    for k, items in adjacent.items()}
    flips = multicon.flip_items(run, flip_inputs(bench_dir))
    if flips:
        out["flip_rate"] = mean(flips)
        out["flip_rate_pairs"] = len(flips)
    return out


def negation_violations(bench_dir: Path) -> dict[str, set[str]]:
    """V(d) = 1 documents per negation query, from the logical Layout's negation labels."""
    out: dict[str, set[str]] = {}
    for row in task_rows(LOGICAL.path(bench_dir, "negation_labels")):
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
