from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from irforge.core.records import Doc, Query, Run
from irforge.corpus.pool import pool_candidates, write_pool

DOCS = [Doc(f"p{i}", text) for i, text in enumerate([
    "Flood barriers along the river protect the town centre.",
    "Sandbags slow flood water entering homes.",
    "Earthquake drills teach pupils to drop, cover and hold on.",
    "Building codes require steel reinforcement against earthquakes.",
    "Wildfire smoke harms people with asthma.",
    "Heat waves are deadliest for elderly people living alone.",
    "River gauges send flood warnings to residents' phones.",
    "Tsunami sirens sound along the coast after a strong earthquake.",
])]
QUERIES = [Query("q1", "how are homes protected from river floods"),
           Query("q2", "what to do during an earthquake"),
           Query("q3", "who is most at risk in a heat wave")]


class BM25sRetriever:
    """bm25s used directly: the contract's .index(docs) / .search(queries, k) -> Run."""

    def __init__(self, method: str = "lucene") -> None:
        import bm25s

        self._bm25s, self.method = bm25s, method

    def index(self, docs: Sequence[Doc]) -> None:
        self.ids = [doc.doc_id for doc in docs]
        self.model = self._bm25s.BM25(method=self.method)
        self.model.index(self._bm25s.tokenize([doc.text for doc in docs], stopwords="en",
                                              show_progress=False), show_progress=False)

    def search(self, queries: Sequence[Query], k: int) -> Run:
        tokens = self._bm25s.tokenize([q.text for q in queries], stopwords="en",
                                      show_progress=False)
        found, scores = self.model.retrieve(tokens, k=min(k, len(self.ids)), show_progress=False)
        return Run(f"bm25s-{self.method}", {
            q.query_id: {self.ids[int(d)]: float(s) for d, s in zip(row, score_row, strict=True)}
            for q, row, score_row in zip(queries, found, scores, strict=True)})


class DenseRetriever:
    """MiniLM embeddings, exact (numpy) or ANN (usearch HNSW) search."""

    def __init__(self, embed, ann: bool) -> None:
        self.embed, self.ann = embed, ann

    def index(self, docs: Sequence[Doc]) -> None:
        self.ids = [doc.doc_id for doc in docs]
        self.vectors = self.embed([doc.text for doc in docs])
        if self.ann:
            from usearch.index import Index

            self.usearch = Index(ndim=self.vectors.shape[1], metric="cos")
            self.usearch.add(np.arange(len(docs)), self.vectors)

    def search(self, queries: Sequence[Query], k: int) -> Run:
        vectors = self.embed([q.text for q in queries])
        scores: dict[str, dict[str, float]] = {}
        for query, vector in zip(queries, vectors, strict=True):
            if self.ann:
                found = self.usearch.search(vector, k)
                pairs = [(int(key), 1 - float(d)) for key, d in zip(found.keys, found.distances,
                                                                     strict=True)]
            else:
                sims = self.vectors @ vector
                pairs = [(int(i), float(sims[i])) for i in np.argsort(-sims)[:k]]
            scores[query.query_id] = {self.ids[i]: s for i, s in pairs}
        return Run("dense-ann" if self.ann else "dense-exact", scores)


def test_pool_is_the_union_of_each_systems_top_k(embedder, tmp_path: Path) -> None:
    systems = {"bm25": BM25sRetriever(), "bm25+": BM25sRetriever("bm25+"),
               "dense-exact": DenseRetriever(embedder, ann=False),
               "dense-ann": DenseRetriever(embedder, ann=True)}
    pool = pool_candidates(QUERIES, DOCS, systems, k=2)
    runs = {}
    for name, system in systems.items():
        system.index(DOCS)
        runs[name] = system.search(QUERIES, 2)
    for query in QUERIES:
        expected = {doc for run in runs.values() for doc, _ in run.ranked(query.query_id)[:2]}
        assert set(pool.candidates[query.query_id]) == expected
        assert 2 <= pool.sizes()[query.query_id] <= 8
    assert "p1" in pool.candidates["q1"] or "p0" in pool.candidates["q1"]
    stats = pool.stats()
    assert stats["queries"] == 3 and stats["pool_size"]["max"] <= 8
    assert write_pool(pool, tmp_path / "pool.jsonl") == 3
    rows = [json.loads(line) for line in (tmp_path / "pool.jsonl").read_text().splitlines()]
    first = rows[0]
    assert first["size"] == len(first["doc_ids"]) == len(first["found_by"])
    agreement = [len(first["found_by"][doc]) for doc in first["doc_ids"]]
    assert agreement == sorted(agreement, reverse=True)


def test_pool_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="k must be"):
        pool_candidates(QUERIES, DOCS, {"bm25": BM25sRetriever()}, k=0)
    with pytest.raises(ValueError, match="at least one"):
        pool_candidates(QUERIES, DOCS, {}, k=3)
