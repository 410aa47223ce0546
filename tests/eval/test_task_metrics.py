"""Paper task metrics read from a bench folder (MultiConIR task files, ComLQ negation labels)."""

from __future__ import annotations

import math

import pytest

from irforge.core.bench import Benchmark
from irforge.core.jsonl import write_jsonl
from irforge.core.records import Doc, Qrel, Query
from irforge.eval.plots import write_plots
from irforge.eval.runner import evaluate_benchmark

CONDITIONS = ["volcano eruption", "glacier melting", "penguin colony"]
NEGATIVES = ["desert storm", "river flooding", "camel caravan"]


def _doc(doc_id: str, kept: int) -> Doc:
    parts = CONDITIONS[:kept] + NEGATIVES[kept:]
    return Doc(doc_id, ". ".join(parts) + ".")


@pytest.fixture
def multicon_bench(tmp_path):
    bench = Benchmark(tmp_path)
    docs = [_doc("S-pos", 3), *(_doc(f"S-hn{j}", j) for j in range(3)),
            Doc("other", "a recipe for bread and butter")]
    bench.write_corpus(docs)
    queries = []
    for k in range(1, 4):
        for style in ("inst", "desc"):
            text = ("Find: " if style == "inst" else "A report about ") + ", ".join(
                CONDITIONS[:k])
            queries.append(Query(f"S-q{k}-{style}", text, {"k": k}))
    bench.write_queries(queries)
    bench.write_qrels([Qrel(q.query_id, "S-pos", q.metadata["k"]) for q in queries])
    ladder = [{"doc_id": "S-pos", "satisfied": 3}] + [
        {"doc_id": f"S-hn{j}", "satisfied": j} for j in range(3)]
    write_jsonl(tmp_path / "multicon" / "task1.jsonl", [
        {"query_id": f"S-q{k}-inst", "k": k, "positive": "S-pos",
         "hard_negative": f"S-hn{k - 1}"} for k in range(1, 4)])
    write_jsonl(tmp_path / "multicon" / "task2.jsonl", [
        {"query_id": "S-q3-inst", "k": 3, "candidates": ladder}])
    write_jsonl(tmp_path / "multicon" / "task3.jsonl", [
        {"source_doc": "S", "k": 3, "instruction_query": "S-q3-inst",
         "descriptive_query": "S-q3-desc", "candidates": ladder}])
    write_jsonl(tmp_path / "logical" / "negation_labels.jsonl", [
        {"query_id": "S-q3-inst", "doc_id": "S-hn2", "violates": 1},
        {"query_id": "S-q3-inst", "doc_id": "S-hn1", "violates": 1},
        {"query_id": "S-q3-inst", "doc_id": "S-pos", "violates": 0}])
    return tmp_path


def test_multicon_and_lsnc_from_task_files(multicon_bench, tmp_path):
    results = evaluate_benchmark(multicon_bench, ["bm25:okapi"], metrics=["ndcg@10"])
    tasks = results.systems[0].tasks
    # the positive holds every query condition, each hard negative misses the k-th one
    assert tasks["win_rate_by_k"] == {1: 1.0, 2: 1.0, 3: 1.0}
    # query_3 scores d_j by how many of its conditions d_j keeps: strictly increasing
    assert tasks["adjacent_win_rate"] == {1: 1.0, 2: 1.0, 3: 1.0}
    assert tasks["flip_rate"] == 0.0
    # top-3 of S-q3-inst: S-pos, S-hn2, S-hn1 -> two violations among K = 100
    assert tasks["lsnc@100"] == pytest.approx(-math.log(3 / 101) / math.log(101))
    assert set(results.systems[0].per_conditions) == {"1", "2", "3"}
    made = write_plots(results, tmp_path / "plots")
    assert [p.name for p in made] == ["conditions.png"]
