"""Stage-aware decomposition pipelines from ``irforge eval`` (CLI and runner): systems, the
recall-failure / easy-negative diagnostics, and exact decomposer failure counts."""

from __future__ import annotations

import json

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Qrel, Query
from irforge.eval.pipelines import AdaptiveDecomposer
from irforge.eval.rerankers.listwise import ListwiseReranker
from irforge.eval.runner import evaluate_benchmark
from irforge.llm import Engine
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.eval.test_cli import irforge

DOCS = [
    Doc("pos", "A crime novel set in Norway with a female detective in a winter fishing "
               "village."),
    Doc("hn", "A crime novel set in Sweden with a male detective in a summer city."),
    Doc("easy1", "Fishing villages of Norway export cod in winter."),
    Doc("easy2", "A guide to baking bread in winter."),
    Doc("other", "Tidal power stations turn the sea into electricity."),
]
CONDITIONS = ["set in Norway", "a female detective", "a winter fishing village"]
QUERIES = [Query("q", "A crime novel: " + "; ".join(CONDITIONS), {"conditions": CONDITIONS}),
           Query("r", "A detective story: set in Sweden; a male detective; a summer city",
                 {"conditions": ["set in Sweden", "a male detective", "a summer city"]}),
           Query("bad", "Bread guide: baking; in winter; for beginners",
                 {"conditions": ["baking", "in winter", "for beginners"]})]


@pytest.fixture
def bench(tmp_path):
    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus(DOCS)
    bench.write_queries(QUERIES)
    bench.write_qrels([Qrel("q", "pos", 1), Qrel("q", "hn", 0), Qrel("r", "hn", 1),
                       Qrel("bad", "easy2", 1)])
    return bench.root


def test_decomposed_retrieval_pipelines_from_the_cli_with_diagnostics(bench):
    done = irforge("eval", str(bench), "--pipeline", "decomposed", "--decomposer", "naive",
                   "--fusion", "rrf", "--fusion", "sum", "--metric", "ndcg@10",
                   "--rerank-k", "2", "--trials", "50", "--bootstrap", "20")
    assert done.returncode == 0, done.stderr
    data = json.loads((bench / "eval" / "results.json").read_text())
    names = [s["name"] for s in data["systems"]]
    assert names == ["bm25-lucene", "bm25-lucene-naive-rrf", "bm25-lucene-naive-sum"]
    for system in data["systems"]:
        assert set(system["diagnostics"]) == {"recall_failure@2", "easy_negative@2",
                                              "first_positive_rank"}
        assert system["failures"] in ({}, {"decomposer": 0})
    report = (bench / "eval" / "report.md").read_text()
    assert "## Decomposition diagnostics" in report


def test_stage_aware_pipeline_counts_decomposer_failures_exactly(bench, tmp_path):
    split = {"subqueries": [{"text": "first part", "conditions": [1, 2]},
                            {"text": "second part", "conditions": [3]}]}
    script = Script(default=Action.answer({"ranking": [2, 1]}), rules=(
        Rule("Query: Bread guide", (Action.answer({"subqueries": []}),)),
        Rule("Split it into", (Action.answer(split),))))
    with ScriptedServer(script) as server:
        engine = Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.db",
                        progress=False, max_retries=0, max_reasks=0)
        results = evaluate_benchmark(
            bench, ["bm25"], [ListwiseReranker(engine, window=4, step=2)], metrics=["ndcg@10"],
            pipelines=["stage-aware", "decomposed"], decomposers=[AdaptiveDecomposer(engine)],
            rerank_k=4, bootstrap=20, trials=50)
    by_name = {s.name: s for s in results.systems}
    decomposed = by_name["bm25-lucene-adaptive-sum"]
    staged = next(s for name, s in by_name.items() if name.endswith("-sum") and ">" in name)
    assert decomposed.failures == {"decomposer": 1}
    assert staged.failures == {"decomposer": 1, "reranker": 0}
    assert sum(staged.failure_reasons.values()) == 1
    assert by_name["bm25-lucene"].failures == {}
    first = results.runs["bm25-lucene"].scores
    assert all(set(results.runs[staged.name].scores[q]) == set(first[q]) for q in first)
