"""Dense retrieval with the embedded MiniLM: encoding, exact vs HNSW search, the disk cache."""

from __future__ import annotations

import numpy as np
import pytest

from irforge.retrievers import get_retriever
from irforge.retrievers.cache import EmbeddingCache
from irforge.retrievers.dense import DenseRetriever, default_model_path, pick_device
from irforge.retrievers.search import HnswIndex, ann_recall, exact_search


def test_default_model_is_the_embedded_minilm_folder():
    path = default_model_path()
    assert (path / "modules.json").is_file()
    import torch

    expected = (("cuda", "bfloat16" if torch.cuda.is_bf16_supported() else "float16")
                if torch.cuda.is_available() else ("cpu", "float32"))
    assert pick_device() == expected  # a GPU when there is one, in half precision
    assert pick_device("cpu") == ("cpu", "float32")


def test_exact_search_matches_brute_force_in_small_chunks():
    rng = np.random.default_rng(0)
    docs = rng.normal(size=(257, 16)).astype(np.float32)
    queries = rng.normal(size=(9, 16)).astype(np.float32)
    idx, val = exact_search(queries, docs, k=7, doc_chunk=50, query_chunk=4)
    full = queries @ docs.T
    expected = np.argsort(-full, axis=1, kind="stable")[:, :7]
    np.testing.assert_array_equal(idx, expected)
    np.testing.assert_allclose(val, np.take_along_axis(full, expected, axis=1), rtol=1e-5)


def test_hnsw_finds_nearly_all_exact_neighbours():
    rng = np.random.default_rng(1)
    docs = rng.normal(size=(2000, 32)).astype(np.float32)
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    queries = docs[:50] + 0.05 * rng.normal(size=(50, 32)).astype(np.float32)
    exact_idx, exact_val = exact_search(queries, docs, k=10)
    index = HnswIndex()
    index.build(docs)
    ann_idx, ann_val = index.search(queries, k=10)
    assert ann_recall(exact_idx, ann_idx, k=10) >= 0.98
    np.testing.assert_allclose(ann_val[:, 0], exact_val[:, 0], atol=1e-4)


@pytest.mark.slow
def test_dense_exact_and_hnsw_on_comlq_sample(comlq_sample, comlq_dense_runs):
    _, queries, _ = comlq_sample
    run_exact, run_ann = comlq_dense_runs["dense"], comlq_dense_runs["dense-hnsw"]
    exact_idx = [list(run_exact.scores[q.query_id])[:10] for q in queries]
    ann_idx = [list(run_ann.scores[q.query_id])[:10] for q in queries]
    overlap = np.mean([len(set(e) & set(a)) / 10 for e, a in zip(exact_idx, ann_idx, strict=True)])
    assert overlap >= 0.98
    first = queries[0].query_id
    assert list(run_exact.scores[first].values()) == sorted(run_exact.scores[first].values(),
                                                            reverse=True)


def test_embedding_cache_skips_known_texts(tmp_path):
    calls = []

    def encode(texts):
        calls.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)

    cache = EmbeddingCache(tmp_path / "e.sqlite")
    first = cache.embed("m", ["a", "bb", "a"], encode)
    reopened = EmbeddingCache(tmp_path / "e.sqlite")
    second = reopened.embed("m", ["bb", "ccc"], encode)
    assert calls == [["a", "bb"], ["ccc"]]
    np.testing.assert_array_equal(first[1], second[0])
    assert (reopened.hits, reopened.misses) == (1, 1)
    reopened.embed("other-model", ["bb"], encode)
    assert calls[-1] == ["bb"]


def test_dense_cache_returns_identical_vectors_without_encoding(tmp_path, monkeypatch):
    retriever = DenseRetriever(cache_dir=tmp_path)
    texts = ["flood warnings on the river", "a recipe for bread"]
    first = retriever.embed(texts)
    assert first.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, rtol=1e-5)

    def no_encoding(texts):
        raise AssertionError("cache miss")

    again = DenseRetriever(cache_dir=tmp_path)
    monkeypatch.setattr(again, "_encode", no_encoding)
    np.testing.assert_array_equal(again.embed(texts), first)
    other_prefix = DenseRetriever(cache_dir=tmp_path, normalize=False)
    with pytest.raises(AssertionError, match="cache miss"):
        monkeypatch.setattr(other_prefix, "_encode", no_encoding)
        other_prefix.embed(texts)


def test_prefixes_are_put_before_queries_and_passages(monkeypatch):
    from irforge.core.records import Doc, Query

    seen: list[str] = []
    retriever = get_retriever("dense", query_prefix="query: ", passage_prefix="passage: ")

    def encode(texts):
        seen.extend(texts)
        return np.eye(len(texts), 4, dtype=np.float32)

    monkeypatch.setattr(retriever, "_encode", encode)
    retriever.index([Doc("d1", "body", "Title")])
    retriever.search([Query("q1", "what")], k=1)
    assert seen == ["passage: Title\nbody", "query: what"]


def test_cache_key_has_model_dtype_device_class_and_normalisation(tmp_path, monkeypatch):
    texts = ["flood warnings on the river", "a recipe for bread"]
    calls: list[str] = []

    def encoder(retriever):
        def encode(batch):
            calls.append(retriever.placement.dtype)
            return np.full((len(batch), 4), 1.0 if retriever.dtype == "float32" else 2.0,
                           dtype=np.float32)
        return encode

    fp32 = DenseRetriever(cache_dir=tmp_path, device="cpu", dtype="float32")
    assert fp32.model_key.endswith("|dtype=float32|device=cpu|normalize=True")
    monkeypatch.setattr(fp32, "_encode", encoder(fp32))
    assert fp32.embed(texts)[0, 0] == 1.0
    bf16 = DenseRetriever(cache_dir=tmp_path, device="cpu", dtype="bf16")
    monkeypatch.setattr(bf16, "_encode", encoder(bf16))
    assert bf16.embed(texts)[0, 0] == 2.0  # re-encoded, not the fp32 vectors
    assert calls == ["float32", "bfloat16"]
    again = DenseRetriever(cache_dir=tmp_path, device="cpu", dtype="fp32")
    monkeypatch.setattr(again, "_encode", encoder(again))
    assert again.embed(texts)[1, 0] == 1.0 and calls == ["float32", "bfloat16"]
    assert bf16.cache.misses == 2 and again.cache.hits == 2


def test_explicit_options_reach_the_dense_encoder():
    from irforge.retrievers.device import encode_options

    with encode_options(device="cpu", dtype="bf16", batch_size=7, batch_tokens=300):
        retriever = get_retriever("dense")
    encoder = retriever.encoder()
    assert (encoder.where.device, encoder.where.dtype) == ("cpu", "bfloat16")
    assert (encoder.batch_size, encoder.batch_tokens) == (7, 300)
    assert DenseRetriever(batch_size=5).encoder().batch_size == 5


def test_on_a_ray_cluster_the_key_names_where_the_actors_encode():
    from irforge.scale.executor import using_executor

    class Cluster:
        distributed = True

        def __init__(self, gpus: float) -> None:
            self.gpus_per_worker = gpus

    with using_executor(Cluster(1.0)):
        assert DenseRetriever().model_key.endswith("|dtype=float16|device=cuda|normalize=True")
        assert DenseRetriever(dtype="bf16").placement.dtype == "bfloat16"
    with using_executor(Cluster(0.0)):
        assert DenseRetriever().model_key.endswith("|dtype=float32|device=cpu|normalize=True")
