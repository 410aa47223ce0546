"""Decomposition diagnostics (stage_aware_decomposition.txt, section 5): why early decomposition
hurts: recall failures, easy negatives in the top k, and where the first positive lands."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Literal

from irforge.core.trec import ranked_ids
from irforge.eval.metrics.ranking import QrelsDict, RunDict

EasyNegativeMode = Literal["any", "share"]


def recall_failure(qrels: QrelsDict, run: RunDict, k: int = 50, relevance_level: int = 1
                   ) -> dict[str, float]:
    """Per query 1 when no relevant document is in the top k (the paper uses k = 50); queries
    without a relevant document are left out (nothing could be recalled)."""
    out = {}
    for query_id, grades in qrels.items():
        if not any(grade >= relevance_level for grade in grades.values()):
            continue
        top = ranked_ids(run.get(query_id, {}), k)
        out[query_id] = float(not any(grades.get(d, 0) >= relevance_level for d in top))
    return out


def easy_negative_rate(qrels: QrelsDict, run: RunDict, k: int = 50,
                       hard_negatives: Mapping[str, Collection[str]] | None = None,
                       mode: EasyNegativeMode = "share") -> dict[str, float]:
    """Per query, easy negatives in the top k: documents outside the query's candidate family.

    The family is every document judged for the query (positives and judged hard negatives)
    plus ``hard_negatives[q]``. ``mode="share"`` (default) gives the share of the top k that
    is an easy negative, what the paper's Table 5 percentages match; ``mode="any"`` gives 1
    when at least one is retrieved (always 1 on sparsely judged sets).
    """
    out = {}
    for query_id, grades in qrels.items():
        family = set(grades) | set((hard_negatives or {}).get(query_id, ()))
        top = ranked_ids(run.get(query_id, {}), k)
        easy = sum(1 for doc_id in top if doc_id not in family)
        out[query_id] = float(easy > 0) if mode == "any" else (easy / len(top) if top else 0.0)
    return out


def first_positive_rank(qrels: QrelsDict, run: RunDict, relevance_level: int = 1
                        ) -> dict[str, float]:
    """Per query the rank of the best-ranked relevant document; not retrieved: depth + 1."""
    out = {}
    for query_id, grades in qrels.items():
        docs = run.get(query_id, {})
        ranking = ranked_ids(docs)
        rank = next((i for i, d in enumerate(ranking, 1)
                     if grades.get(d, 0) >= relevance_level), len(ranking) + 1)
        out[query_id] = float(rank)
    return out
