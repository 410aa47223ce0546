"""BM25 and the dense default on a fixed sample of the real ComLQ benchmark, per logical type."""

from __future__ import annotations

import pytest

from irforge.eval import evaluate
from irforge.eval.metrics.groups import group_means, query_groups
from irforge.retrievers import get_retriever

COMLQ_TYPES = {"1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "2in", "3in", "inp",
               "pin", "pni"}


def _check_per_type(queries, qrels, run):
    table = evaluate(qrels, run, ["ndcg@10", "recall@100"], per_query=True)
    groups = query_groups(queries)
    per_type = group_means(table, groups)
    assert set(per_type) <= COMLQ_TYPES and len(per_type) >= 8
    assert sum(v["queries"] for v in per_type.values()) == len(queries)
    overall = evaluate(qrels, run, ["ndcg@10"])["ndcg@10"]
    weighted = sum(v["ndcg@10"] * v["queries"] for v in per_type.values()) / len(queries)
    assert weighted == pytest.approx(overall)
    return overall, per_type


def test_bm25_on_comlq_sample_per_type(comlq_sample):
    docs, queries, qrels = comlq_sample
    retriever = get_retriever("bm25")
    retriever.index(docs)
    run = retriever.search(queries, k=100)
    overall, _ = _check_per_type(queries, qrels, run)
    # 280 passages, gold ones included: a working BM25 is far above chance (~0.02)
    assert overall > 0.3
    okapi = get_retriever("bm25:okapi")
    okapi.index(docs)
    assert evaluate(qrels, okapi.search(queries, k=100), ["ndcg@10"])["ndcg@10"] > 0.3


@pytest.mark.slow
def test_dense_default_on_comlq_sample_per_type(comlq_sample, comlq_dense_runs):
    _, queries, qrels = comlq_sample
    overall, _ = _check_per_type(queries, qrels, comlq_dense_runs["dense"])
    assert overall > 0.3
