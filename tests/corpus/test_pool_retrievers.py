"""Pooling with the real retrievers (bm25, dense MiniLM exact and HNSW), by library and CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Run
from irforge.corpus.pool import pool_candidates
from irforge.retrievers import get_retriever

from .test_pool import DOCS, QUERIES

ROOT = Path(__file__).resolve().parents[2]
SPECS = ("bm25", "dense", "dense-hnsw")
K = 3


def _top(run: Run, query_id: str, k: int) -> set[str]:
    return {doc_id for doc_id, _ in run.ranked(query_id)[:k]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Run]:
    """Each system's own top-K, searched independently of the pool."""
    cache = tmp_path_factory.mktemp("embeddings")
    out = {}
    for spec in SPECS:
        retriever = get_retriever(spec, cache)
        retriever.index(DOCS)
        out[spec] = retriever.search(QUERIES, K)
    return out


@pytest.fixture(scope="module")
def library_pool(tmp_path_factory):
    return pool_candidates(QUERIES, DOCS, list(SPECS), k=K,
                           cache_dir=tmp_path_factory.mktemp("pool-embeddings"))


def test_library_pool_is_the_union_of_real_retrievers_top_k(runs, library_pool):
    pool = library_pool
    assert pool.systems == SPECS
    for query in QUERIES:
        qid = query.query_id
        assert all(len(run.scores[qid]) == K for run in runs.values())
        expected = set().union(*(_top(run, qid, K) for run in runs.values()))
        assert set(pool.candidates[qid]) == expected
        assert pool.sizes()[qid] == len(expected)
        for doc_id, found_by in pool.candidates[qid].items():
            assert found_by == tuple(s for s in SPECS if doc_id in _top(runs[s], qid, K))
    # every system puts the three flood passages first for the flood query, and the three
    # earthquake passages for the earthquake query: pools of exactly K
    assert set(pool.candidates["q1"]) == {"p0", "p1", "p6"}
    assert set(pool.candidates["q2"]) == {"p2", "p3", "p7"}
    assert pool.candidates["q3"]["p5"] == SPECS
    assert pool.sizes() == {"q1": 3, "q2": 3, "q3": len(pool.candidates["q3"])}
    assert K < pool.sizes()["q3"] <= K * len(SPECS)
    # HNSW on eight passages finds exactly what exact search finds
    for query in QUERIES:
        assert _top(runs["dense"], query.query_id, K) == _top(runs["dense-hnsw"],
                                                                 query.query_id, K)


def test_pool_with_k_above_the_corpus_size_holds_every_passage(tmp_path):
    pool = pool_candidates(QUERIES, DOCS, ["bm25", "dense-hnsw"], k=20, cache_dir=tmp_path)
    assert pool.sizes() == {"q1": 8, "q2": 8, "q3": 8}


def test_cli_pool_with_bm25_and_dense_exact_and_ann(library_pool, tmp_path):
    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus(DOCS)
    bench.write_queries(QUERIES)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1"}
    args = ["--retriever", "bm25", "--retriever", "dense", "--retriever", "dense-hnsw"]
    done = subprocess.run([sys.executable, "-m", "irforge", "corpus", "pool", str(bench.root),
                           *args, "--k", str(K)], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in
            (bench.root / "pool" / "candidates.jsonl").read_text().splitlines()]
    assert rows == library_pool.rows()
    assert {row["query_id"]: row["size"] for row in rows} == library_pool.sizes()
    stats = json.loads(done.stdout.split("] ", 1)[1])
    assert stats["systems"] == list(SPECS) and stats["k"] == K
    assert stats["pool_size"]["total"] == sum(library_pool.sizes().values())
    # dense and dense-hnsw share the embedding cache in the folder
    assert (bench.root / ".irforge" / "embeddings" / "embeddings.sqlite").is_file()
