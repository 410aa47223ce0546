"""Fusing the ranked lists of sub-queries (section 3.2): RRF and Score-Sum."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from irforge.core.trec import ranked_ids

DocScores = Mapping[str, float]
Missing = Literal["zero", "min"]


def rrf(lists: Sequence[DocScores], k: float = 60.0) -> dict[str, float]:
    """Eq. 3: ``sum_i 1 / (k + rank_i(d))`` over the lists that contain d (ranks 1-based,
    trec_eval tie rule). ``k`` is the smoothing constant (60 in Cormack et al.)."""
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    fused: dict[str, float] = {}
    for scores in lists:
        for rank, doc_id in enumerate(ranked_ids(scores), start=1):
            fused[doc_id] = fused.get(doc_id, 0.0) + 1.0 / (k + rank)
    return fused


def score_sum(lists: Sequence[DocScores], missing: Missing = "zero") -> dict[str, float]:
    """Eq. 4: ``sum_i s_i(d)``. A document absent from a list adds 0 (``missing="zero"``, the
    paper's reranking stage scores every candidate so nothing is absent) or that list's lowest
    score (``"min"``, for retrieval-stage lists cut at k)."""
    docs = {doc_id for scores in lists for doc_id in scores}
    fused = dict.fromkeys(docs, 0.0)
    for scores in lists:
        floor = min(scores.values()) if (missing == "min" and scores) else 0.0
        for doc_id in docs:
            fused[doc_id] += scores.get(doc_id, floor)
    return fused


FUSIONS: dict[str, Callable[[Sequence[DocScores]], dict[str, float]]] = {
    "rrf": rrf,
    "sum": score_sum,
}
"""Fusions for lists that score the same candidates (the reranking stage)."""

RETRIEVAL_FUSIONS: dict[str, Callable[[Sequence[DocScores]], dict[str, float]]] = {
    "rrf": rrf,
    "sum": lambda lists: score_sum(lists, missing="min"),
}
"""Fusions for retrieval lists cut at k: a document missing from a list gets its minimum."""
