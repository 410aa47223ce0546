"""The retrievability index of the ``target`` validator: the benchmark's first-stage
retrievers over the corpus, the top k scaled to its size (used through ``Context``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

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
