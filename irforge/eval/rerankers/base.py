"""Shared pieces of the rerankers: which candidates to rescore and how to assemble the run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc, Query, Run
from irforge.core.trec import ranked_ids
from irforge.retrievers.base import doc_text

DEFAULT_INSTRUCTION = "Given a search request, decide whether the document satisfies it."


def candidates(run: Run, query_id: str, k: int, docs_by_id: Mapping[str, Doc]) -> list[str]:
    """The first-stage top ``k`` of a query (trec tie rule), checked against the corpus."""
    top = ranked_ids(run.scores.get(query_id, {}), k)
    missing = [doc_id for doc_id in top if doc_id not in docs_by_id]
    if missing:
        raise IrforgeError(f"run {run.name!r} ranks document(s) {missing[:3]} for query "
                           f"{query_id!r} that are not in the corpus; rerank a run made on "
                           "this corpus")
    return top


def pairs_for(queries: Sequence[Query], run: Run, k: int, docs_by_id: Mapping[str, Doc],
              max_chars: int | None = None) -> list[tuple[str, str, str, str]]:
    """``(query_id, doc_id, query_text, doc_text)`` for every candidate to rescore."""
    out = []
    for query in queries:
        for doc_id in candidates(run, query.query_id, k, docs_by_id):
            text = doc_text(docs_by_id[doc_id])
            out.append((query.query_id, doc_id, query.text,
                        text if max_chars is None else text[:max_chars]))
    return out


def with_tail(head: Mapping[str, float], first_stage: Mapping[str, float]
              ) -> dict[str, float]:
    """The reranked ``head`` followed by the rest of the first-stage list in its own order,
    every tail score strictly below the lowest head score (so the run keeps its depth)."""
    out = dict(head)
    tail = [doc_id for doc_id in ranked_ids(first_stage) if doc_id not in head]
    if not tail:
        return out
    floor = min(head.values(), default=0.0)
    step = max(1.0, abs(floor) * 1e-6)  # stays distinct for very large scores too
    for index, doc_id in enumerate(tail, start=1):
        out[doc_id] = floor - step * index
    return out


def run_from_pairs(name: str, queries: Sequence[Query],
                   pairs: Sequence[tuple[str, str, str, str]], scores: Sequence[float],
                   first_stage: Run) -> Run:
    """The rescored candidates on top, the first-stage tail kept below them (``with_tail``)."""
    heads: dict[str, dict[str, float]] = {query.query_id: {} for query in queries}
    for (query_id, doc_id, _, _), score in zip(pairs, scores, strict=True):
        heads[query_id][doc_id] = float(score)
    return Run(name=name, scores={query_id: with_tail(head, first_stage.scores.get(query_id, {}))
                                  for query_id, head in heads.items()})
