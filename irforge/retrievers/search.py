"""Nearest neighbours over embeddings: exact (chunked matmul, bounded memory) and HNSW (usearch).

Both take L2-normalised or raw vectors and rank by inner product, returning best-first
``(indices, scores)`` arrays of shape ``(queries, k)``. Exact search runs in torch on the device
where the document vectors are (a torch tensor on a GPU stays there; numpy arrays are searched
on the CPU), numpy only when torch is not installed. Tie order, the same on every device and
path: score descending, then document index ascending.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from irforge.core.errors import require

SCORE_BYTES = {"cpu": 256 << 20, "cuda": 1 << 30}  # one score block per device class
QUERY_CHUNK = {"cpu": 1024, "cuda": 2048}


def has_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


def chunk_sizes(n_docs: int, k: int, device_class: str, doc_chunk: int | None,
                query_chunk: int | None) -> tuple[int, int]:
    """(query chunk, document chunk) so a score block fits the device's budget."""
    queries = query_chunk or QUERY_CHUNK.get(device_class, QUERY_CHUNK["cpu"])
    budget = SCORE_BYTES.get(device_class, SCORE_BYTES["cpu"])
    docs = doc_chunk or max(k + 1, budget // (4 * queries))
    return max(1, queries), max(1, min(docs, max(n_docs, 1)))


def exact_search(queries, docs, k: int, doc_chunk: int | None = None,
                 query_chunk: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top-k inner products, scanning documents in chunks so memory stays
    ``query_chunk x doc_chunk`` scores whatever the corpus size; ``docs`` and ``queries`` are
    numpy arrays or torch tensors (searched on ``docs``'s device)."""
    if has_torch():
        return _torch_search(require("torch", "eval"), queries, docs, k, doc_chunk,
                             query_chunk)
    return _numpy_search(np.asarray(queries, np.float32), np.asarray(docs, np.float32), k,
                         doc_chunk, query_chunk)


def _tensor(torch, values, device=None):
    if isinstance(values, torch.Tensor):
        return values if device is None else values.to(device)
    array = np.ascontiguousarray(values, dtype=np.float32)
    tensor = torch.from_numpy(array)
    return tensor if device is None else tensor.to(device)


def _ordered(torch, values, indices, k: int):
    """The first ``k`` of candidate rows in (score desc, index asc) order."""
    indices, by_index = indices.sort(dim=1)
    values = values.gather(1, by_index)
    values, by_value = values.sort(dim=1, descending=True, stable=True)
    return values[:, :k], indices.gather(1, by_value)[:, :k]


def _chunk_top(torch, scores, k: int):
    """Top ``k`` of a score block in tie order; rows whose tie at the k-th score goes past
    the candidates ``topk`` returned are sorted whole."""
    width = scores.shape[1]
    if k + 1 >= width:
        values, indices = scores.sort(dim=1, descending=True, stable=True)
        return values[:, :k], indices[:, :k]
    values, indices = scores.topk(k + 1, dim=1)
    boundary = values[:, k] == values[:, k - 1]
    values, indices = _ordered(torch, values, indices, k)
    if bool(boundary.any()):
        rows = boundary.nonzero().flatten()
        whole_values, whole_indices = scores[rows].sort(dim=1, descending=True, stable=True)
        values[rows], indices[rows] = whole_values[:, :k], whole_indices[:, :k]
    return values, indices


def _results(n_queries: int, n_docs: int, k: int) -> tuple[int, np.ndarray, np.ndarray]:
    """The effective k and the (indices, scores) arrays a search fills, row per query."""
    k = min(k, n_docs)
    return (k, np.zeros((n_queries, max(k, 0)), dtype=np.int64),
            np.zeros((n_queries, max(k, 0)), dtype=np.float32))


def _torch_search(torch, queries, docs, k: int, doc_chunk: int | None,
                  query_chunk: int | None) -> tuple[np.ndarray, np.ndarray]:
    docs = _tensor(torch, docs)
    queries = _tensor(torch, queries, docs.device).to(docs.dtype)
    n_queries, n_docs = queries.shape[0], docs.shape[0]
    k, best_idx, best_val = _results(n_queries, n_docs, k)
    if k <= 0 or n_queries == 0:
        return best_idx, best_val
    q_size, d_size = chunk_sizes(n_docs, k, docs.device.type, doc_chunk, query_chunk)
    with torch.inference_mode():
        for q0 in range(0, n_queries, q_size):
            block = queries[q0:q0 + q_size]
            values = indices = None
            for d0 in range(0, n_docs, d_size):
                chunk_values, chunk_indices = _chunk_top(torch, block @ docs[d0:d0 + d_size].T,
                                                         k)
                chunk_indices = chunk_indices + d0
                if values is None:
                    values, indices = chunk_values, chunk_indices
                else:
                    values, indices = _ordered(torch, torch.cat([values, chunk_values], 1),
                                               torch.cat([indices, chunk_indices], 1), k)
            rows = slice(q0, q0 + block.shape[0])
            best_val[rows] = values.float().cpu().numpy()
            best_idx[rows] = indices.cpu().numpy()
    return best_idx, best_val


def _numpy_ordered(values: np.ndarray, indices: np.ndarray, k: int):
    order = np.lexsort((indices, -values), axis=1)[:, :k]
    return np.take_along_axis(values, order, 1), np.take_along_axis(indices, order, 1)


def _numpy_search(queries: np.ndarray, docs: np.ndarray, k: int, doc_chunk: int | None,
                  query_chunk: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The fallback without torch: the same chunks, tie order and results."""
    n_queries, n_docs = queries.shape[0], docs.shape[0]
    k, best_idx, best_val = _results(n_queries, n_docs, k)
    if k <= 0 or n_queries == 0:
        return best_idx, best_val
    q_size, d_size = chunk_sizes(n_docs, k, "cpu", doc_chunk, query_chunk)
    for q0 in range(0, n_queries, q_size):
        block = queries[q0:q0 + q_size]
        values = np.zeros((block.shape[0], 0), np.float32)
        indices = np.zeros((block.shape[0], 0), np.int64)
        for d0 in range(0, n_docs, d_size):
            scores = (block @ docs[d0:d0 + d_size].T).astype(np.float32)
            columns = np.broadcast_to(np.arange(d0, d0 + scores.shape[1]), scores.shape)
            values, indices = _numpy_ordered(np.concatenate([values, scores], 1),
                                             np.concatenate([indices, columns], 1), k)
        best_val[q0:q0 + block.shape[0]], best_idx[q0:q0 + block.shape[0]] = values, indices
    return best_idx, best_val


class ExactSearcher:
    """The batch function of distributed exact search: query blocks -> their (indices, scores)
    from :func:`exact_search` over ``docs``, which each worker receives once and keeps on its
    GPU when it has one."""

    def __init__(self, docs: np.ndarray, k: int) -> None:
        self.docs, self.k = docs, k
        if has_torch():
            from irforge.retrievers.device import default_device

            torch = require("torch", "eval")
            self.docs = _tensor(torch, docs, default_device(torch))

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
    job = BatchJob(partial(ExactSearcher, docs, k), batch_size=1, uses_gpu=True,
                   name="exact-search")
    found = list(executor.map(job, blocks))
    return (np.concatenate([idx for idx, _ in found]),
            np.concatenate([val for _, val in found]))


class HnswIndex:
    """usearch HNSW over inner product; ``connectivity`` and ``expansion_*`` trade speed for
    recall (measure it with :func:`ann_recall`). ``threads=0`` builds and searches on every
    core; ``threads=1`` builds the same graph on every run."""

    def __init__(self, connectivity: int = 32, expansion_add: int = 200,
                 expansion_search: int = 200, seed: int = 0, threads: int = 0) -> None:
        self.connectivity, self.seed, self.threads = connectivity, seed, threads
        self.expansion_add, self.expansion_search = expansion_add, expansion_search
        self._index = None

    def build(self, docs: np.ndarray) -> None:
        usearch_index = require("usearch.index", "eval")
        index = usearch_index.Index(ndim=docs.shape[1], metric="ip", dtype="f32",
                                    connectivity=self.connectivity,
                                    expansion_add=self.expansion_add,
                                    expansion_search=self.expansion_search)
        index.add(np.arange(docs.shape[0], dtype=np.uint64), np.asarray(docs, np.float32),
                  threads=self.threads)
        self._index = index

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        if self._index is None:
            raise RuntimeError("call build(docs) before search")
        k = min(k, len(self._index))
        matches = self._index.search(np.asarray(queries, np.float32), k, threads=self.threads)
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
