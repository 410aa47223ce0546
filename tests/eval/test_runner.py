"""evaluate_benchmark with a reranker and the exact-vs-ANN check, on a tiny folder."""

from __future__ import annotations

import json

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Qrel, Query
from irforge.core.trec import ranked_ids
from irforge.eval.report import write_outputs
from irforge.eval.runner import evaluate_benchmark
from irforge.retrievers.dense import default_model_path

TOPICS = ["river flood warnings", "sourdough bread starter", "glacier retreat in the alps",
          "chess opening theory", "tidal power stations", "honey bee dances",
          "volcanic ash and aviation", "medieval castle sieges"]


@pytest.fixture
def tiny_bench(tmp_path):
    bench = Benchmark(tmp_path)
    bench.write_corpus([Doc(f"d{i}", f"An article about {t}.", t.title())
                        for i, t in enumerate(TOPICS)])
    queries = [Query(f"q{i}", t.split()[0] + " " + t.split()[-1],
                     {"type": "even" if i % 2 == 0 else "odd"}) for i, t in enumerate(TOPICS)]
    bench.write_queries(queries)
    bench.write_qrels([Qrel(f"q{i}", f"d{i}", 1) for i in range(len(TOPICS))])
    return tmp_path


def test_reranker_systems_and_ann_check_are_reported(tiny_bench):
    import torch

    torch.manual_seed(0)
    results = evaluate_benchmark(
        tiny_bench, ["bm25", "dense"], [f"cross-encoder:{default_model_path()}"],
        metrics=["ndcg@10", "mrr"], depth=5, rerank_k=3, ann=True,
        cache_dir=tiny_bench / ".irforge")
    names = [s.name for s in results.systems]
    assert names == ["bm25-lucene", "bm25-lucene>ce-model", "dense-minilm",
                     "dense-minilm>ce-model"]
    first, reranked = results.runs["bm25-lucene"], results.runs["bm25-lucene>ce-model"]
    for query_id, docs in first.scores.items():
        before = ranked_ids(docs)
        after = ranked_ids(reranked.scores[query_id])
        # the top 3 are reordered among themselves; the tail keeps its place, scored lower
        assert sorted(after[:3]) == sorted(before[:3]) and after[3:] == before[3:]
        head, tail = after[:3], after[3:]
        assert all(reranked.scores[query_id][t] < min(reranked.scores[query_id][h]
                                                      for h in head) for t in tail)
    assert all(s.failures.get("reranker", 0) == 0 for s in results.systems)
    assert results.systems[0].means["mrr"] > 0.9  # each query names its own article
    check = results.ann[0]
    assert check["retriever"] == "dense" and check["recall_at_10"] == 1.0
    assert check["ndcg@10_drop"] == pytest.approx(0.0)
    written = write_outputs(results, tiny_bench / "eval")
    data = json.loads(written["results"].read_text())
    assert data["ann"][0]["recall_at_10"] == 1.0
    assert (tiny_bench / "eval" / "plots" / "exact_vs_ann.png").is_file()
    assert (tiny_bench / "eval" / "runs" / "bm25-lucene_ce-model.trec").is_file()
