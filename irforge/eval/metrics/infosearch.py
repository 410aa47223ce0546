"""InfoSearch (infosearch.txt, section 2.3 and appendix B): SICR, WISE, p-MRR, Robustness@k.

Inputs are three runs over the same query ids: the original query (``og``), the query with the
instruction (``ins``) and with the reversed instruction (``rev``), plus qrels: the gold document
of a query is the one relevant in the instructed qrels; N (for WISE) is the number of relevant
documents of the query in the original qrels. Ranks follow trec_eval's tie rule; a gold
document the run did not retrieve gets rank ``len(run[q]) + 1`` and score ``-inf``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from irforge.eval.metrics.evaluate import evaluate_per_query
from irforge.eval.metrics.ranking import QrelsDict, RunDict
from irforge.eval.metrics.ranks import rank_or_depth

RewardShape = Literal["sqrt", "linear"]


@dataclass(frozen=True)
class GoldPosition:
    """Where one gold document sits in the three modes (ranks 1-based, scores raw)."""

    query_id: str
    doc_id: str
    n_original: int
    rank_og: int
    rank_ins: int
    rank_rev: int
    score_og: float
    score_ins: float
    score_rev: float


def gold_positions(og: RunDict, ins: RunDict, rev: RunDict, qrels_og: QrelsDict,
                   qrels_ins: QrelsDict) -> list[GoldPosition]:
    """One :class:`GoldPosition` per (query, gold document) in the instructed qrels."""
    positions = []
    for query_id, grades in qrels_ins.items():
        n_original = sum(1 for grade in qrels_og.get(query_id, {}).values() if grade > 0)
        runs = [run.get(query_id, {}) for run in (og, ins, rev)]
        for doc_id, grade in grades.items():
            if grade <= 0:
                continue
            ranks = [rank_or_depth(docs, doc_id) for docs in runs]
            scores = [float(docs.get(doc_id, -math.inf)) for docs in runs]
            positions.append(GoldPosition(query_id, doc_id, n_original, *ranks, *scores))
    return positions


def _per_query(values: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Average the values of a query's gold documents (InfoSearch has one per query)."""
    groups: dict[str, list[float]] = {}
    for query_id, value in values:
        groups.setdefault(query_id, []).append(value)
    return {query_id: sum(v) / len(v) for query_id, v in groups.items()}


def sicr_indicator(p: GoldPosition) -> float:
    """Eq. 1: 1 when the instruction lifts and the reversal lowers both rank and score."""
    return float(p.rank_ins < p.rank_og and p.score_ins > p.score_og
                 and p.rank_og < p.rank_rev and p.score_og > p.score_rev)


def wise_reward(rank_og: int, rank_ins: int, n_original: int, k: int = 20,
                beyond_k: float = 0.01, shape: RewardShape = "sqrt") -> float:
    """Eq. 4. ``shape="sqrt"`` is the printed formula ``1 - sqrt(R_ori - R_ins)/K``; the prose
    describes ``1 - (R_ori - R_ins)/K``, available as ``shape="linear"``."""
    if rank_og <= n_original and rank_ins == 1:
        return 1.0
    if rank_og <= k:
        gain = rank_og - rank_ins
        lift = math.sqrt(gain) if shape == "sqrt" else float(gain)
        return (1.0 - lift / k) / math.sqrt(rank_ins)
    return beyond_k


def wise_penalty(rank_og: int, rank_ins: int, rank_rev: int) -> float:
    """Eq. 5, the first matching case: -1, then the instructed drop, then the reversed rise."""
    if rank_rev < rank_og < rank_ins:
        return -1.0
    if rank_og <= rank_ins:
        return (rank_og - rank_ins) / rank_ins
    return (rank_rev - rank_og) / rank_og


def wise_value(p: GoldPosition, k: int = 20, beyond_k: float = 0.01,
               shape: RewardShape = "sqrt") -> float:
    """Eq. 3: reward when R_ins <= R_ori < R_rev, penalty otherwise."""
    if p.rank_ins <= p.rank_og < p.rank_rev:
        return wise_reward(p.rank_og, p.rank_ins, p.n_original, k, beyond_k, shape)
    return wise_penalty(p.rank_og, p.rank_ins, p.rank_rev)


def sicr(og: RunDict, ins: RunDict, rev: RunDict, qrels_og: QrelsDict,
         qrels_ins: QrelsDict) -> dict[str, float]:
    """Per-query SICR indicator (eq. 1); its mean is the SICR of eq. 2."""
    positions = gold_positions(og, ins, rev, qrels_og, qrels_ins)
    return _per_query([(p.query_id, sicr_indicator(p)) for p in positions])


def wise(og: RunDict, ins: RunDict, rev: RunDict, qrels_og: QrelsDict, qrels_ins: QrelsDict,
         k: int = 20, beyond_k: float = 0.01, shape: RewardShape = "sqrt") -> dict[str, float]:
    """Per-query WISE value F(q) (eq. 3-5); its mean is WISE (eq. 6)."""
    positions = gold_positions(og, ins, rev, qrels_og, qrels_ins)
    return _per_query([(p.query_id, wise_value(p, k, beyond_k, shape)) for p in positions])


def p_mrr_value(rank_og: int, rank_new: int) -> float:
    """Eq. 9 (FollowIR's p-MRR for one document): > 0 when it moved down, < 0 when up."""
    if rank_og > rank_new:
        return rank_new / rank_og - 1.0
    return 1.0 - rank_og / rank_new


def p_mrr(og: RunDict, changed: RunDict, docs: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """Per-query p-MRR: mean of eq. 9 over ``docs[q]``, the documents the change demotes.

    For InfoSearch pass the reversed run and the gold documents (the reversed instruction
    makes them non-relevant, the setting p-MRR was designed for).
    """
    values = []
    for query_id, doc_ids in docs.items():
        before, after = og.get(query_id, {}), changed.get(query_id, {})
        values.extend((query_id, p_mrr_value(rank_or_depth(before, d), rank_or_depth(after, d)))
                      for d in doc_ids)
    return _per_query(values)


def gold_docs(qrels_ins: QrelsDict) -> dict[str, list[str]]:
    """The gold documents of each query: relevant in the instructed qrels."""
    return {q: [d for d, g in grades.items() if g > 0] for q, grades in qrels_ins.items()}


def robustness_at_k(variants: Sequence[tuple[QrelsDict, RunDict]], k: int = 10
                    ) -> dict[str, float]:
    """Eq. 7-8: per query the minimum nDCG@k over its instruction variants.

    ``variants`` are (qrels, run) pairs over the same query ids (og, instructed, reversed);
    only queries present in every variant's qrels are scored.
    """
    metric = f"ndcg@{k}"
    tables = [evaluate_per_query(qrels, run, [metric], missing="zero") for qrels, run in variants]
    common = set.intersection(*(set(table) for table in tables)) if tables else set()
    return {q: min(table[q][metric] for table in tables) for q in sorted(common)}
