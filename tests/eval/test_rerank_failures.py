"""Reranked runs keep the first-stage tail; failed model calls are counted per system and shown
(the shipped seed benchmark, a real dead port, the scripted OpenAI-compatible server)."""

from __future__ import annotations

import json
import socket

import pytest
from rich.console import Console

from irforge.core.trec import ranked_ids
from irforge.data.sample import sample_queries, write_seed_benchmark
from irforge.eval.report import rich_table, write_outputs
from irforge.eval.rerankers.listwise import ListwiseReranker
from irforge.eval.runner import evaluate_benchmark
from irforge.llm import Engine
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

METRICS = ["ndcg@10", "recall@100", "map", "mrr"]


@pytest.fixture(scope="module")
def seed_bench(tmp_path_factory):
    folder = tmp_path_factory.mktemp("seed")
    write_seed_benchmark(folder)
    return folder


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _engine(url: str, tmp_path) -> Engine:
    return Engine("openai/scripted", api_base=url, cache_path=tmp_path / "c.db", progress=False,
                  max_retries=0, max_reasks=0, timeout=5.0, concurrency=1)


def test_reranker_whose_every_call_failed_scores_exactly_like_its_first_stage(seed_bench,
                                                                             tmp_path):
    engine = _engine(f"http://127.0.0.1:{_closed_port()}/v1", tmp_path)
    reranker = ListwiseReranker(engine, window=20, step=10)
    results = evaluate_benchmark(seed_bench, ["bm25"], [reranker], metrics=METRICS,
                                 rerank_k=2, bootstrap=50)
    bm25, dead = results.systems
    assert dead.means == bm25.means  # the tail is kept: same depth, same order
    assert bm25.means["recall@100"] == 1.0
    assert bm25.failures == {} and dead.failures == {"reranker": results.queries}
    assert sum(dead.failure_reasons.values()) == results.queries
    written = write_outputs(results, tmp_path / "eval", plots=False)
    data = json.loads(written["results"].read_text())
    assert [s["failures"] for s in data["systems"]] == [{}, {"reranker": results.queries}]
    report = written["report"].read_text()
    assert "## Model-call failures" in report and f"| {dead.name} | {results.queries} |" in report
    console = Console(record=True, width=250)
    console.print(rich_table(results))
    row = next(line for line in console.export_text().splitlines() if dead.name in line)
    assert row.rstrip(" │|").split()[-1] == str(results.queries)


def test_working_reranker_reorders_only_the_head_and_failures_are_counted_exactly(seed_bench,
                                                                                 tmp_path):
    failing = [q for q in sample_queries()][:2]
    script = Script(default=Action.answer({"ranking": [2, 1]}),
                    rules=tuple(Rule(q.text, (Action.error(500),)) for q in failing))
    with ScriptedServer(script) as server:
        reranker = ListwiseReranker(_engine(server.url, tmp_path), window=2, step=1)
        results = evaluate_benchmark(seed_bench, ["bm25"], [reranker], metrics=METRICS,
                                     rerank_k=2, bootstrap=50)
    first, reranked = (results.runs[s.name] for s in results.systems)
    assert results.systems[1].failures == {"reranker": len(failing)}
    for query_id, docs in first.scores.items():
        before, after = ranked_ids(docs), ranked_ids(reranked.scores[query_id])
        swapped = query_id not in {q.query_id for q in failing} and len(before) > 1
        assert after[:2] == (before[:2][::-1] if swapped else before[:2])
        assert after[2:] == before[2:]
        assert set(reranked.scores[query_id]) == set(docs)
