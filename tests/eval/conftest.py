"""Shared fixtures: a fixed, seeded sample of the real ComLQ benchmark; models load once."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from irforge.core.beir import read_corpus, read_qrels, read_queries
from irforge.core.records import qrels_to_dict


@pytest.fixture(scope="session")
def comlq_sample(comlq_dir: Path):
    """80 ComLQ queries (seeded), their gold passages and 200 other passages as distractors."""
    rng = random.Random(13)
    queries = list(read_queries(comlq_dir / "queries.jsonl"))
    qrels = qrels_to_dict(read_qrels(comlq_dir / "qrels" / "test.tsv"))
    chosen = sorted(rng.sample([q for q in queries if q.query_id in qrels], 80),
                    key=lambda q: int(q.query_id))
    gold = {d for q in chosen for d in qrels[q.query_id]}
    corpus = list(read_corpus(comlq_dir / "corpus.jsonl"))
    others = rng.sample([d for d in corpus if d.doc_id not in gold], 200)
    docs = [d for d in corpus if d.doc_id in gold] + others
    sample_qrels = {q.query_id: dict(qrels[q.query_id]) for q in chosen}
    return docs, chosen, sample_qrels


@pytest.fixture(scope="session")
def comlq_dense_runs(comlq_sample, tmp_path_factory):
    """Exact and HNSW runs of the embedded MiniLM on the sample (encoded once, cached)."""
    from irforge.retrievers import get_retriever

    docs, queries, _ = comlq_sample
    cache = tmp_path_factory.mktemp("embeddings")
    runs = {}
    for spec in ("dense", "dense-hnsw"):
        retriever = get_retriever(spec, cache_dir=cache)
        retriever.index(docs)
        runs[spec] = retriever.search(queries, k=100)
    return runs
