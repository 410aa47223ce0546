"""Manual-review support (paper A.7): flag positives many retrievers rank low or judge irrelevant.

InfoSearch flagged documents that failed to reach the top 50 in six or more of twelve models, or
had a relevance score below 0.5, then had people screen them. Here the defaults are the same
rank cut-off, "at least half of the runs", and 0.5 on relevance normalised to 0..1; the output
is a JSONL review list the annotation module can push to Label Studio.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.jsonl import write_jsonl
from irforge.core.layouts.instructions import LAYOUT
from irforge.core.records import Judgment, Run


@dataclass(frozen=True)
class ReviewItem:
    """A positive pair flagged for a person to check, with the evidence that flagged it."""

    query_id: str
    doc_id: str
    reasons: tuple[str, ...]
    ranks: Mapping[str, int | None] = field(default_factory=dict)
    relevance: float | None = None


def rank_of(run: Run, query_id: str, doc_id: str) -> int | None:
    """1-based rank of a document in a run (ties by doc id), None when not retrieved."""
    for position, (candidate, _) in enumerate(run.ranked(query_id), start=1):
        if candidate == doc_id:
            return position
    return None


def relevance_from_judgments(judgments: Iterable[Judgment], task: str = "relevance"
                             ) -> dict[tuple[str, str], float]:
    """Mean label per pair, divided by the largest label seen (so graded scales map to 0..1)."""
    sums: dict[tuple[str, str], list[float]] = {}
    for judgment in judgments:
        if judgment.task == task:
            sums.setdefault((judgment.query_id, judgment.doc_id), []).append(judgment.label)
    top = max((max(labels) for labels in sums.values()), default=1.0) or 1.0
    return {key: sum(labels) / len(labels) / max(top, 1.0) for key, labels in sums.items()}


def flag_for_review(qrels: Mapping[str, Mapping[str, int]], runs: Sequence[Run],
                    relevance: Mapping[tuple[str, str], float] | None = None,
                    rank_cutoff: int = 50, min_low_runs: int | None = None,
                    min_relevance: float = 0.5) -> list[ReviewItem]:
    """Positives ranked below ``rank_cutoff`` in ``min_low_runs`` runs or judged < threshold."""
    needed = math.ceil(len(runs) / 2) if min_low_runs is None else min_low_runs
    relevance = relevance or {}
    items = []
    for query_id in sorted(qrels):
        for doc_id in sorted(d for d, grade in qrels[query_id].items() if grade > 0):
            ranks = {run.name: rank_of(run, query_id, doc_id) for run in runs}
            low = sum(1 for rank in ranks.values() if rank is None or rank > rank_cutoff)
            reasons = []
            if runs and needed and low >= needed:
                reasons.append(f"ranked below {rank_cutoff} in {low} of {len(runs)} runs")
            score = relevance.get((query_id, doc_id))
            if score is not None and score < min_relevance:
                reasons.append(f"relevance {score:.2f} below {min_relevance}")
            if reasons:
                items.append(ReviewItem(query_id, doc_id, tuple(reasons), ranks, score))
    return items


def read_trec_run(path: Path, name: str | None = None) -> Run:
    """A TREC run file named after the file (the one shared reader, :mod:`irforge.core.trec`)."""
    from irforge.core.trec import read_trec_run as read_run

    return read_run(path, name=name or Path(path).stem)


def _row(item: ReviewItem, queries: Mapping[str, Any], docs: Mapping[str, Any]) -> dict:
    query = queries.get(item.query_id)
    doc = docs.get(item.doc_id)
    meta = dict(query.metadata) if query is not None else {}
    return {"task": "instructions.review", "query_id": item.query_id, "doc_id": item.doc_id,
            "core_query_id": meta.get("core_query_id", item.query_id),
            "query": query.text if query is not None else "",
            "instructed": meta.get("instructed", ""), "condition": meta.get("condition", ""),
            "dimension": meta.get("dimension", ""),
            "document": doc.text if doc is not None else "",
            "reasons": list(item.reasons), "ranks": dict(item.ranks),
            "relevance": item.relevance}


def write_review_list(bench: Benchmark, runs: Sequence[Run], mode: str = "og",
                      **thresholds: Any) -> tuple[Path, int]:
    """Flag positives of ``qrels/<mode>.tsv`` and write ``instructions/review.jsonl``.

    In the og mode every unit of a core query shares its positives, so only the first unit
    of each core query is reviewed (one row per core query and document).
    """
    queries = {query.query_id: query for query in bench.queries()}
    first_units: dict[str, str] = {}
    for query_id, query in queries.items():
        first_units.setdefault(str(query.metadata.get("core_query_id", query_id)), query_id)
    qrels = bench.qrels_dict(mode)
    if mode == "og":
        qrels = {qid: grades for qid, grades in qrels.items() if qid in first_units.values()}
    relevance = relevance_from_judgments(bench.judgments())
    items = flag_for_review(qrels, runs, relevance, **thresholds)
    docs = {doc.doc_id: doc for doc in bench.corpus()}
    path = LAYOUT.path(bench.root, "review")
    count = write_jsonl(path, (_row(item, queries, docs) for item in items))
    return path, count
