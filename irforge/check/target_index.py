"""The retrievability index of the ``target`` validator: the benchmark's first-stage
retrievers over the corpus, the top k scaled to its size (used through ``Context``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
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

    def _indexed(self) -> list[tuple[str, Any]]:
        if not self._built and self.docs:
            from irforge.retrievers import get_retriever

            for spec in self.retrievers:
                retriever = get_retriever(spec)
                try:
                    retriever.index(list(self.docs))
                except ValueError:  # nothing to index (no word in any passage)
                    continue
                self._built.append((spec, retriever))
        return self._built

    def ranks(self, text: str, positives: Sequence[str]) -> dict[str, int | None]:
        """Per retriever, the 1-based rank of the first positive among documents with a
        positive score in its top ``4 * depth`` (None: not there)."""
        wanted = set(positives)
        found: dict[str, int | None] = {}
        for spec, retriever in self._indexed():
            found[spec] = None
            run = retriever.search([Query("q", text)], max(self.depth, 1) * 4)
            for rank, (doc_id, score) in enumerate(run.ranked("q"), start=1):
                if score <= 0:
                    break
                if doc_id in wanted:
                    found[spec] = rank
                    break
        return found

    def rank(self, text: str, positives: Sequence[str]) -> int | None:
        """Best 1-based rank of any positive over every retriever (None: none finds one)."""
        return best_rank(self.ranks(text, positives))

    def settings(self) -> dict[str, Any]:
        """The depth, how it was chosen, the corpus size and the retrievers (manifest)."""
        return {"k": self.depth, "k_given": self.k, "corpus_size": len(self.docs),
                "retrievers": list(self.retrievers)}


def best_rank(ranks: Mapping[str, int | None]) -> int | None:
    """The best (lowest) of per-retriever ranks; None when no retriever found a positive."""
    found = [rank for rank in ranks.values() if rank is not None]
    return min(found) if found else None
