"""Relevance-target validator: a first-stage retriever finds the query's relevant passage.

The positive must rank within the top k of at least one retriever (BM25 through the project's
bm25 retriever; ``dense`` too when asked for), with k scaled to the corpus size:
``max(TARGET_MIN_K, ceil(TARGET_SCALE * sqrt(N)))`` and never above N. A query whose positive
no retriever finds is rejected as "target not retrievable". Its ranks are recorded either way:
the best in ``Context.ranks`` (``irforge check --json`` prints them as ``target_ranks``) and
per retriever with k in ``Context.target_records``, which generation copies into each kept
query's metadata as ``target`` (:mod:`irforge.check.generation`).

This filter biases a benchmark towards targets a first-stage retriever can reach (lexical ones
for BM25): a recipe or ``--target-k`` may relax k; it is never switched off silently.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from irforge.check.base import Case, Context, Finding, validator
from irforge.check.target_index import (  # noqa: F401  (re-exported)
    DEFAULT_RETRIEVERS,
    TARGET_MIN_K,
    TARGET_SCALE,
    TargetIndex,
    best_rank,
    target_k,
)


def target_record(index: TargetIndex, ranks: dict[str, int | None],
                  positives: list[str]) -> dict[str, Any]:
    """What a kept query's metadata says of its target: each retriever's rank of its first
    positive, the best, the depth k it had to reach and the corpus size."""
    rank = best_rank(ranks)
    return {"rank": rank, "ranks": dict(ranks), "k": index.depth,
            "corpus_size": len(index.docs), "retrievable": rank is not None
            and rank <= index.depth, "positives": list(positives)}


@validator("target")
def check_target(case: Case, context: Context) -> Iterator[Finding]:
    """The relevant passage ranks within the top k of a first-stage retriever."""
    positives = [doc.doc_id for doc in case.positives if doc.doc_id in context.docs]
    if not positives or not context.docs:
        return
    index = context.targets
    ranks = index.ranks(case.text, positives)
    rank = best_rank(ranks)
    context.ranks[case.query.query_id] = rank
    context.target_records[case.query.query_id] = target_record(index, ranks, positives)
    if rank is None or rank > index.depth:
        where = "not retrieved at all" if rank is None else f"best rank {rank}"
        yield Finding("target", "text", f"target not retrievable: its relevant passage is "
                      f"{where} (needs top {index.depth} of {len(index.docs)} passages, "
                      f"retrievers {', '.join(index.retrievers)})",
                      "rewrite the query so it asks for its passage, or relax the depth "
                      "(--target-k, a recipe's target_k; printed and recorded)")
