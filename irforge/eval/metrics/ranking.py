"""Runs and qrels turned into sorted label matrices, once, so every metric is a numpy reduction.

Tie rule (the one trec_eval and pytrec_eval use): documents are ordered by score descending,
and documents with equal scores by document id descending (byte-wise string comparison,
``strcmp``). Ties are resolved only in the rows where tied documents carry different labels,
because elsewhere the order inside a tie cannot change any metric.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

UNJUDGED = np.iinfo(np.int64).min
"""Label given to retrieved documents that have no qrel (kept apart from a judged 0)."""

QrelsDict = Mapping[str, Mapping[str, int]]
RunDict = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class RankedLabels:
    """Labels of the retrieved documents of a block of queries, best first, padded with 0.

    ``labels[i, j]`` is the grade of the document at rank ``j + 1`` for ``query_ids[i]``
    (0 when unjudged or padding), ``judged[i, j]`` says whether it has a qrel, ``retrieved[i]``
    how many documents the run has, ``ideal_gains[i]`` the positive grades of the query's
    qrels (descending, the ideal ranking) and ``num_rel[i]`` how many qrels reach the
    relevance level.
    """

    query_ids: tuple[str, ...]
    labels: np.ndarray
    judged: np.ndarray
    retrieved: np.ndarray
    ideal_gains: np.ndarray
    num_rel: np.ndarray
    relevance_level: int
    num_nonrel: np.ndarray | None = None  # judged below the level (bpref's N)

    @property
    def relevant(self) -> np.ndarray:
        """Boolean matrix: the document at this rank reaches the relevance level."""
        return self.labels >= self.relevance_level


def _ideal_gains(grades_by_query: Sequence[Mapping[str, int]]) -> np.ndarray:
    """Positive grades of each query's qrels, descending, padded with 0 (the ideal ranking)."""
    positives = [sorted((g for g in grades.values() if g > 0), reverse=True)
                 for grades in grades_by_query]
    out = np.zeros((len(positives), max((len(p) for p in positives), default=0) + 1))
    for row, gains in enumerate(positives):
        out[row, : len(gains)] = gains
    return out


def _tie_break_rows(order: np.ndarray, scores: np.ndarray, labels: np.ndarray,
                    retrieved: np.ndarray) -> np.ndarray:
    """Rows where equal scores sit next to different labels (their order matters)."""
    sorted_scores = np.take_along_axis(scores, order, axis=1)
    sorted_labels = np.take_along_axis(labels, order, axis=1)
    same_score = sorted_scores[:, 1:] == sorted_scores[:, :-1]
    in_run = np.arange(1, scores.shape[1])[None, :] < retrieved[:, None]
    differ = sorted_labels[:, 1:] != sorted_labels[:, :-1]
    return np.flatnonzero((same_score & in_run & differ).any(axis=1))


def rank_block(qrels: QrelsDict, run: RunDict, query_ids: Sequence[str],
               relevance_level: int = 1) -> RankedLabels:
    """Sort one block of queries' documents (trec_eval tie rule) into label matrices."""
    lengths = np.fromiter((len(run.get(q, ())) for q in query_ids), dtype=np.int64,
                          count=len(query_ids))
    width = max(int(lengths.max(initial=0)), 1)
    n = len(query_ids)
    uniform = bool(n) and int(lengths.min()) == width
    scores = np.empty((n, width)) if uniform else np.full((n, width), -np.inf)
    raw = (np.empty((n, width), dtype=np.int64) if uniform
           else np.full((n, width), UNJUDGED, dtype=np.int64))
    for row, (query_id, length) in enumerate(zip(query_ids, lengths.tolist(), strict=True)):
        if length:
            docs = run[query_id]
            grades = qrels.get(query_id, {})
            scores[row, :length] = np.fromiter(docs.values(), dtype=np.float64, count=length)
            raw[row, :length] = np.fromiter(map(grades.get, docs, repeat(UNJUDGED)),
                                            dtype=np.int64, count=length)
    scores = np.where(np.isnan(scores), -np.inf, scores)
    order = np.argsort(-scores, axis=1, kind="stable")
    for row in _tie_break_rows(order, scores, raw, lengths):
        docs = run[query_ids[row]]
        position = {doc_id: index for index, doc_id in enumerate(docs)}
        ranked = sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)
        order[row, : len(ranked)] = [position[doc_id] for doc_id, _ in ranked]
    raw = np.take_along_axis(raw, order, axis=1)
    judged = raw != UNJUDGED
    labels = np.where(judged, raw, 0)
    grades_by_query = [qrels.get(q, {}) for q in query_ids]
    num_rel = np.fromiter((sum(1 for g in grades.values() if g >= relevance_level)
                           for grades in grades_by_query), dtype=np.int64, count=n)
    num_nonrel = np.fromiter((sum(1 for g in grades.values() if g < relevance_level)
                              for grades in grades_by_query), dtype=np.int64, count=n)
    return RankedLabels(query_ids=tuple(query_ids), labels=labels, judged=judged,
                        retrieved=lengths, ideal_gains=_ideal_gains(grades_by_query),
                        num_rel=num_rel, relevance_level=relevance_level,
                        num_nonrel=num_nonrel)


def iter_blocks(qrels: QrelsDict, run: RunDict, query_ids: Sequence[str], relevance_level: int,
                max_cells: int = 4_000_000) -> Iterator[RankedLabels]:
    """Rank queries in blocks of at most ``max_cells`` matrix cells to bound memory."""
    block: list[str] = []
    widest = 0
    for query_id in query_ids:
        length = max(len(run.get(query_id, ())), 1)
        if block and max(widest, length) * (len(block) + 1) > max_cells:
            yield rank_block(qrels, run, block, relevance_level)
            block, widest = [], 0
        block.append(query_id)
        widest = max(widest, length)
    if block:
        yield rank_block(qrels, run, block, relevance_level)
