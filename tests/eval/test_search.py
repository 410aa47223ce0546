"""Exact search in torch (on the vectors' device) and its numpy fallback: results and tie order."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from irforge.retrievers import search
from irforge.retrievers.device import placement
from irforge.retrievers.search import chunk_sizes, exact_search


def brute_force(queries: np.ndarray, docs: np.ndarray, k: int):
    """Score desc, then document index asc: the documented tie order."""
    full = queries.astype(np.float64) @ docs.astype(np.float64).T
    order = np.lexsort((np.broadcast_to(np.arange(docs.shape[0]), full.shape), -full),
                       axis=1)[:, :k]
    return order, np.take_along_axis(full, order, axis=1)


def tied_corpus():
    """Duplicated documents (equal scores) spread over several chunks, on a coarse grid so
    float rounding cannot separate them."""
    rng = np.random.default_rng(3)
    base = rng.integers(-2, 3, size=(12, 8)).astype(np.float32)
    docs = np.concatenate([base, base, base[::-1], base[:5]])  # 41 rows, many exact ties
    queries = rng.integers(-2, 3, size=(9, 8)).astype(np.float32)
    return queries, docs


@pytest.mark.parametrize("chunks", [(None, None), (7, 4), (5, 1), (41, 2)])
def test_torch_search_breaks_ties_by_document_index_in_any_chunking(chunks):
    queries, docs = tied_corpus()
    for k in (1, 3, 10, 41, 60):
        idx, val = exact_search(queries, docs, k=k, doc_chunk=chunks[0], query_chunk=chunks[1])
        expected_idx, expected_val = brute_force(queries, docs, min(k, 41))
        np.testing.assert_array_equal(idx, expected_idx)
        np.testing.assert_allclose(val, expected_val, rtol=1e-6)


def test_numpy_fallback_gives_the_same_results_without_torch(monkeypatch):
    queries, docs = tied_corpus()
    with_torch = exact_search(queries, docs, k=10, doc_chunk=7)
    monkeypatch.setattr(search, "has_torch", lambda: False)
    without = exact_search(queries, docs, k=10, doc_chunk=7)
    np.testing.assert_array_equal(without[0], with_torch[0])
    np.testing.assert_allclose(without[1], with_torch[1], rtol=1e-6)
    np.testing.assert_array_equal(without[0], brute_force(queries, docs, 10)[0])


def test_search_runs_on_the_device_of_the_document_tensor():
    rng = np.random.default_rng(4)
    docs = rng.normal(size=(500, 32)).astype(np.float32)
    queries = rng.normal(size=(20, 32)).astype(np.float32)
    device = placement().device  # a GPU when there is one
    on_device = torch.from_numpy(docs).to(device)
    idx, val = exact_search(queries, on_device, k=25, doc_chunk=128)
    expected_idx, expected_val = brute_force(queries, docs, 25)
    assert isinstance(idx, np.ndarray) and idx.dtype == np.int64 and val.dtype == np.float32
    np.testing.assert_allclose(val, expected_val, rtol=1e-4, atol=1e-4)
    overlap = np.mean([len(set(a) & set(b)) / 25 for a, b in zip(idx, expected_idx,
                                                                  strict=True)])
    assert overlap >= 0.99  # TF32 matmuls on a GPU may swap near-equal neighbours


def test_empty_inputs_and_chunk_sizes():
    docs = np.ones((3, 4), np.float32)
    idx, val = exact_search(np.zeros((0, 4), np.float32), docs, k=5)
    assert idx.shape == (0, 3) and val.shape == (0, 3)
    assert chunk_sizes(1_000_000, 100, "cuda", None, None) == (2048, 131_072)
    assert chunk_sizes(10, 100, "cpu", None, None) == (1024, 10)
    assert chunk_sizes(1_000_000, 100, "cpu", 50, 4) == (4, 50)
