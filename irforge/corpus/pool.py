"""Candidate pooling for labeling (DisastIR 3.5): per query, the union of several retrievers' top-k.

DisastIR pooled the top 10 passages of 30 retrievers, each run with exact and with ANN
search. Retrievers follow the eval contract (``.index(docs)``, ``.search(queries, k) -> Run``)
and are given as objects or as specs for ``irforge.retrievers.get_retriever`` (for
example ``bm25``, ``dense`` for exact and ``dense-hnsw`` for ANN search). The pool remembers
which systems found each passage, and its per-query sizes are reported.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from irforge.core.jsonl import write_jsonl
from irforge.core.records import Doc, Query, Run

DEFAULT_RETRIEVERS = ("bm25", "dense", "dense-hnsw")


class Retriever(Protocol):
    def index(self, docs: Sequence[Doc]) -> Any: ...

    def search(self, queries: Sequence[Query], k: int) -> Run: ...


@dataclass(frozen=True)
class CandidatePool:
    """``candidates[query_id][doc_id]`` = the systems that put the doc in their top-k."""

    k: int
    systems: tuple[str, ...]
    candidates: Mapping[str, Mapping[str, tuple[str, ...]]]

    def sizes(self) -> dict[str, int]:
        return {query_id: len(docs) for query_id, docs in self.candidates.items()}

    def stats(self) -> dict[str, Any]:
        """Pool sizes (min, mean, max, total) and how many passages each system alone found."""
        sizes = list(self.sizes().values()) or [0]
        only = {name: 0 for name in self.systems}
        for docs in self.candidates.values():
            for found_by in docs.values():
                if len(found_by) == 1:
                    only[found_by[0]] += 1
        return {"queries": len(self.candidates), "k": self.k, "systems": list(self.systems),
                "pool_size": {"min": min(sizes), "mean": round(statistics.fmean(sizes), 2),
                              "max": max(sizes), "total": sum(sizes)},
                "found_only_by": only}

    def rows(self) -> list[dict[str, Any]]:
        """JSONL rows: one per query with its pool, sorted by how many systems agree."""
        rows = []
        for query_id, docs in self.candidates.items():
            ordered = sorted(docs.items(), key=lambda item: (-len(item[1]), item[0]))
            rows.append({"query_id": query_id, "size": len(docs),
                         "doc_ids": [doc_id for doc_id, _ in ordered],
                         "found_by": {doc_id: list(found) for doc_id, found in ordered}})
        return rows


def _resolve(retrievers: Mapping[str, Retriever | str] | Sequence[str],
             cache_dir: Path | None = None) -> dict[str, Retriever]:
    named = (dict(retrievers) if isinstance(retrievers, Mapping)
             else {spec: spec for spec in retrievers})
    resolved: dict[str, Retriever] = {}
    # irforge's own module: third-party libraries are checked (with the extra named) inside
    # each retriever's builder, so an ImportError here is a real bug, not a missing extra.
    from irforge.retrievers import get_retriever

    for name, retriever in named.items():
        if isinstance(retriever, str):
            retriever = get_retriever(retriever, cache_dir)
        resolved[name] = retriever
    return resolved


def pool_candidates(queries: Sequence[Query], docs: Sequence[Doc],
                    retrievers: Mapping[str, Retriever | str] | Sequence[str] = DEFAULT_RETRIEVERS,
                    k: int = 10, cache_dir: Path | None = None) -> CandidatePool:
    """Index ``docs`` with every retriever, take each one's top-k per query, and pool them.

    ``cache_dir`` keeps dense embeddings of specs on disk (``dense`` and ``dense-hnsw`` of the
    same model then encode the corpus once)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    systems = _resolve(retrievers, cache_dir)
    if not systems:
        raise ValueError("give at least one retriever to pool")
    found: dict[str, dict[str, list[str]]] = {query.query_id: {} for query in queries}
    for name, retriever in systems.items():
        retriever.index(docs)
        run = retriever.search(queries, k)
        for query in queries:
            for doc_id, _score in run.ranked(query.query_id)[:k]:
                found[query.query_id].setdefault(doc_id, []).append(name)
    candidates = {query_id: {doc_id: tuple(names) for doc_id, names in docs_found.items()}
                  for query_id, docs_found in found.items()}
    return CandidatePool(k=k, systems=tuple(systems), candidates=candidates)


def write_pool(pool: CandidatePool, path: Path) -> int:
    """Write the pool as JSONL (one row per query); returns the number of rows."""
    return write_jsonl(Path(path), pool.rows())
