"""Ranks under trec_eval's tie rule (the order itself: :func:`irforge.core.trec.ranked_ids`),
shared by the papers' metrics."""

from __future__ import annotations

from collections.abc import Mapping

DocScores = Mapping[str, float]


def rank_of(docs: DocScores, doc_id: str) -> int | None:
    """1-based rank of ``doc_id`` under the trec_eval tie rule, None when not retrieved."""
    if doc_id not in docs:
        return None
    score = docs[doc_id]
    ahead = sum(1 for other, value in docs.items()
                if value > score or (value == score and other > doc_id))
    return ahead + 1


def rank_or_depth(docs: DocScores, doc_id: str) -> int:
    """Rank of ``doc_id``, or one past the end of the list when it was not retrieved."""
    rank = rank_of(docs, doc_id)
    return len(docs) + 1 if rank is None else rank


def mean(values: Mapping[str, float]) -> float:
    """Arithmetic mean of per-query values (0.0 for none; the caller decides if that is ok)."""
    return float(sum(values.values()) / len(values)) if values else 0.0
