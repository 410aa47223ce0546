"""The pipelines compared in stage_aware_decomposition.txt (sections 4-6).

- plain rerank: monolithic retrieval, rerank the top k with the whole query;
- stage-aware: monolithic retrieval, rerank the top k with each sub-query, fuse (the paper's
  framework);
- decomposed retrieval: every sub-query retrieves on its own, fuse (the baseline that suffers
  recall failures and easy negatives).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc, Query, Run
from irforge.core.trec import ranked_ids
from irforge.eval.metrics.diagnostics import (
    easy_negative_rate,
    first_positive_rank,
    recall_failure,
)
from irforge.eval.metrics.ranking import QrelsDict
from irforge.eval.metrics.ranks import mean
from irforge.eval.pipelines.decompose import Decomposer
from irforge.eval.pipelines.fusion import FUSIONS, RETRIEVAL_FUSIONS
from irforge.eval.rerankers.base import with_tail
from irforge.retrievers.base import Reranker, Retriever


def _fuse(name: str, fusion: str, per_query: Mapping[str, list[Mapping[str, float]]],
          k: int | None = None, fusions=FUSIONS) -> Run:
    try:
        fuse = fusions[fusion]
    except KeyError:
        raise IrforgeError(f"unknown fusion {fusion!r}: use {', '.join(fusions)}") from None
    scores = {}
    for query_id, lists in per_query.items():
        fused = fuse(lists)
        keep = ranked_ids(fused, k)
        scores[query_id] = {doc_id: fused[doc_id] for doc_id in keep}
    return Run(name=name, scores=scores)


def plain_rerank(queries: Sequence[Query], docs_by_id: Mapping[str, Doc], first_stage: Run,
                 reranker: Reranker, k: int = 50) -> Run:
    """Rerank the monolithic top k with the whole query."""
    run = reranker.rerank(queries, docs_by_id, first_stage, k)
    return Run(name=f"{first_stage.name}>{reranker.name}", scores=run.scores)


def stage_aware_rerank(queries: Sequence[Query], docs_by_id: Mapping[str, Doc],
                       first_stage: Run, reranker: Reranker, decomposer: Decomposer,
                       fusion: str = "sum", k: int = 50) -> Run:
    """Monolithic top k, reranked by every sub-query, fused (sum by default, as the paper);
    the first-stage tail below the top k is kept under the fused head."""
    subqueries = decomposer.decompose(queries)
    flat = [sub for subs in subqueries.values() for sub in subs]
    heads = {q.query_id: set(ranked_ids(first_stage.scores.get(q.query_id, {}), k))
             for q in queries}
    candidates = {sub.query_id: dict(first_stage.scores.get(sub.metadata["parent"], {}))
                  for sub in flat}
    reranked = reranker.rerank(flat, docs_by_id, Run(first_stage.name, candidates), k)
    lists = {q.query_id: [{d: v for d, v in reranked.scores.get(s.query_id, {}).items()
                           if d in heads[q.query_id]} for s in subqueries[q.query_id]]
             for q in queries}
    fused = _fuse(f"{first_stage.name}>{decomposer.name}-{reranker.name}-{fusion}", fusion,
                  lists)
    return Run(fused.name, {q: with_tail(head, first_stage.scores.get(q, {}))
                            for q, head in fused.scores.items()})


def decomposed_retrieve(queries: Sequence[Query], retriever: Retriever,
                        decomposer: Decomposer, fusion: str = "sum", k: int = 50) -> Run:
    """Each sub-query retrieves its own top k from the indexed retriever; lists are fused."""
    subqueries = decomposer.decompose(queries)
    flat = [sub for subs in subqueries.values() for sub in subs]
    run = retriever.search(flat, k)
    lists = {q.query_id: [run.scores.get(s.query_id, {}) for s in subqueries[q.query_id]]
             for q in queries}
    return _fuse(f"{retriever.name}-{decomposer.name}-{fusion}", fusion, lists, k,
                 RETRIEVAL_FUSIONS)


def first_stage_diagnostics(qrels: QrelsDict, run: Run, k: int = 50,
                            hard_negatives: Mapping[str, Sequence[str]] | None = None
                            ) -> dict[str, float]:
    """Means of the section 5 diagnostics for a candidate list: recall-failure rate (queries
    with a positive), easy negative share of the top k, and mean rank of the first positive."""
    return {
        f"recall_failure@{k}": mean(recall_failure(qrels, run.scores, k)),
        f"easy_negative@{k}": mean(easy_negative_rate(qrels, run.scores, k, hard_negatives)),
        "first_positive_rank": mean(first_positive_rank(qrels, run.scores)),
    }
