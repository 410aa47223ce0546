"""Relevance-target validator: a first-stage retriever finds the query's relevant passage.

The positive must rank within the top k of at least one retriever (BM25 through the project's
bm25 retriever; ``dense`` too when asked for), with k scaled to the corpus size:
``max(TARGET_MIN_K, ceil(TARGET_SCALE * sqrt(N)))`` and never above N. A query whose positive
no retriever finds is rejected as "target not retrievable"; its best rank is recorded either
way in ``Context.ranks`` (``irforge check --json`` prints them as ``target_ranks``; generation
does not yet copy it into the written query's metadata).

This filter biases a benchmark towards targets a first-stage retriever can reach (lexical ones
for BM25): a recipe or ``--target-k`` may relax k; it is never switched off silently.
"""

from __future__ import annotations

from collections.abc import Iterator

from irforge.check.base import Case, Context, Finding, validator
from irforge.check.target_index import (  # noqa: F401  (re-exported)
    DEFAULT_RETRIEVERS,
    TARGET_MIN_K,
    TARGET_SCALE,
    TargetIndex,
    target_k,
)


@validator("target")
def check_target(case: Case, context: Context) -> Iterator[Finding]:
    """The relevant passage ranks within the top k of a first-stage retriever."""
    positives = [doc.doc_id for doc in case.positives if doc.doc_id in context.docs]
    if not positives or not context.docs:
        return
    index = context.targets
    rank = index.rank(case.text, positives)
    context.ranks[case.query.query_id] = rank
    if rank is None or rank > index.depth:
        where = "not retrieved at all" if rank is None else f"best rank {rank}"
        yield Finding("target", "text", f"target not retrievable: its relevant passage is "
                      f"{where} (needs top {index.depth} of {len(index.docs)} passages, "
                      f"retrievers {', '.join(index.retrievers)})",
                      "rewrite the query so it asks for its passage, or relax the depth with "
                      "--target-k (recorded in the report)")
