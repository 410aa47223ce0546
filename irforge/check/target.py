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

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.check.suite import Case, Context, Finding, validator
from irforge.core.records import Doc, Query

TARGET_MIN_K = 3
TARGET_SCALE = 1.0
DEFAULT_RETRIEVERS = ("bm25",)


def target_k(corpus_size: int) -> int:
    """The retrievability depth for a corpus of ``corpus_size`` passages."""
    scaled = max(TARGET_MIN_K, math.ceil(TARGET_SCALE * math.sqrt(max(corpus_size, 0))))
    return max(1, min(corpus_size, scaled))


@dataclass
class TargetIndex:
    """Retrievers indexed once over the corpus; the best rank of a query's positives."""

    docs: Sequence[Doc]
    k: int | None = None
    retrievers: tuple[str, ...] = DEFAULT_RETRIEVERS
    _built: list[Any] = field(default_factory=list, init=False, repr=False)

    @property
    def depth(self) -> int:
        return self.k if self.k is not None else target_k(len(self.docs))

    def _indexed(self) -> list[Any]:
        if not self._built and self.docs:
            from irforge.eval.retrievers import get_retriever

            for spec in self.retrievers:
                retriever = get_retriever(spec)
                try:
                    retriever.index(list(self.docs))
                except ValueError:  # nothing to index (no word in any passage)
                    continue
                self._built.append(retriever)
        return self._built

    def rank(self, text: str, positives: Sequence[str]) -> int | None:
        """Best 1-based rank of any positive among documents with a positive score
        (None: no retriever scores one)."""
        wanted = set(positives)
        best: int | None = None
        for retriever in self._indexed():
            run = retriever.search([Query("q", text)], max(self.depth, 1) * 4)
            for rank, (doc_id, score) in enumerate(run.ranked("q"), start=1):
                if score <= 0:
                    break
                if doc_id in wanted:
                    best = rank if best is None else min(best, rank)
                    break
        return best


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
