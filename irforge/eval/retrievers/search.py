"""Nearest neighbours over embeddings: exact (chunked matmul, bounded memory) and HNSW (usearch).

Both take L2-normalised or raw vectors and rank by inner product, returning best-first
``(indices, scores)`` arrays of shape ``(queries, k)``.
"""

from __future__ import annotations

import numpy as np

from irforge.core.errors import require


def exact_search(queries: np.ndarray, docs: np.ndarray, k: int, doc_chunk: int = 65_536,
                 query_chunk: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """Top-k inner products, scanning documents in chunks so memory stays
    ``query_chunk x (doc_chunk + k)`` floats whatever the corpus size."""
    k = min(k, docs.shape[0])
    n_queries = queries.shape[0]
    best_idx = np.zeros((n_queries, k), dtype=np.int64)
    best_val = np.zeros((n_queries, k), dtype=np.float32)
    for q0 in range(0, n_queries, query_chunk):
        block = queries[q0:q0 + query_chunk]
        vals = np.full((block.shape[0], 0), -np.inf, dtype=np.float32)
        idx = np.zeros((block.shape[0], 0), dtype=np.int64)
        for d0 in range(0, docs.shape[0], doc_chunk):
            scores = block @ docs[d0:d0 + doc_chunk].T
            vals = np.concatenate([vals, scores.astype(np.float32)], axis=1)
            idx = np.concatenate([idx, np.broadcast_to(
                np.arange(d0, d0 + scores.shape[1]), scores.shape)], axis=1)
            if vals.shape[1] > k:
                keep = np.argpartition(-vals, k - 1, axis=1)[:, :k]
                vals = np.take_along_axis(vals, keep, axis=1)
                idx = np.take_along_axis(idx, keep, axis=1)
        order = np.lexsort((idx, -vals), axis=1)
        best_val[q0:q0 + block.shape[0]] = np.take_along_axis(vals, order, axis=1)
        best_idx[q0:q0 + block.shape[0]] = np.take_along_axis(idx, order, axis=1)
    return best_idx, best_val


class ExactSearcher:
    """The batch function of distributed exact search: query blocks -> their (indices, scores)
    from :func:`exact_search` over ``docs``, which each worker receives once."""

    def __init__(self, docs: np.ndarray, k: int) -> None:
        self.docs, self.k = docs, k

    def __call__(self, blocks: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
        return [exact_search(block, self.docs, self.k) for block in blocks]


def exact_search_on(executor, queries: np.ndarray, docs: np.ndarray, k: int,
                    query_chunk: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """:func:`exact_search` with the query blocks spread over ``executor``'s workers (the same
    blocks as in-process, so the same results)."""
    from functools import partial

    from irforge.scale.executor import BatchJob

    blocks = [queries[start:start + query_chunk] for start in range(0, len(queries), query_chunk)]
    if not blocks:
        return exact_search(queries, docs, k)
    job = BatchJob(partial(ExactSearcher, docs, k), batch_size=1, name="exact-search")
    found = list(executor.map(job, blocks))
    return (np.concatenate([idx for idx, _ in found]),
            np.concatenate([val for _, val in found]))


class HnswIndex:
    """usearch HNSW over inner product; ``connectivity`` and ``expansion_*`` trade speed for
    recall (measure it with :func:`ann_recall`)."""

    def __init__(self, connectivity: int = 32, expansion_add: int = 200,
                 expansion_search: int = 200, seed: int = 0) -> None:
        self.connectivity, self.seed = connectivity, seed
        self.expansion_add, self.expansion_search = expansion_add, expansion_search
        self._index = None

    def build(self, docs: np.ndarray) -> None:
        usearch_index = require("usearch.index", "eval")
        index = usearch_index.Index(ndim=docs.shape[1], metric="ip", dtype="f32",
                                    connectivity=self.connectivity,
                                    expansion_add=self.expansion_add,
                                    expansion_search=self.expansion_search)
        index.add(np.arange(docs.shape[0], dtype=np.uint64), docs.astype(np.float32),
                  threads=1)
        self._index = index

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        if self._index is None:
            raise RuntimeError("call build(docs) before search")
        k = min(k, len(self._index))
        matches = self._index.search(queries.astype(np.float32), k, threads=0)
        keys = np.asarray(matches.keys, dtype=np.int64).reshape(len(queries), -1)
        # usearch reports inner-product *distance* 1 - ip; turn it back into a similarity
        sims = 1.0 - np.asarray(matches.distances, dtype=np.float32).reshape(len(queries), -1)
        return keys, sims


def ann_recall(exact_idx: np.ndarray, ann_idx: np.ndarray, k: int) -> float:
    """Share of the exact top-k found by the ANN top-k, averaged over queries."""
    if exact_idx.shape[0] == 0:
        return 0.0
    hits = [len(set(e[:k].tolist()) & set(a[:k].tolist())) / max(len(e[:k]), 1)
            for e, a in zip(exact_idx, ann_idx, strict=True)]
    return float(np.mean(hits))
