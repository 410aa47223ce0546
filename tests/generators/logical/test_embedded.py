"""End to end through the real embedded model (SmolLM2-135M via llama.cpp) on ComLQ passages.

The model is tiny: most queries fail the checks. What a user relies on is that the build
completes and that every planned query ends up either accepted or in failures.jsonl with
its reason, with the manifest recording the engine's work. One query of a negation type
(pin), with the judge and hypothetical queries configured; ``make demo`` builds one-hop (1p)
queries with this model (tests/demo/test_logical.py asserts on them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Doc
from irforge.generators.logical.build import build_logical
from irforge.generators.logical.labels import labels_path
from irforge.generators.logical.method import Config as LogicalConfig
from irforge.steps.runner import BuildRunner

# ComLQ corpus ids: 10000 answers query 0 (1p) alone; 13110 + 13111 answer query 1990 (pin_2).
# The pin query samples one or two of these articles; an article it leaves is a distractor.
ARTICLES = {"10000": "comlq-q0", "13110": "comlq-q1990", "13111": "comlq-q1990"}
CHECKS = ("llm ", "rejected: structure:", "rejected: evidence:", "rejected: answer:",
          "rejected: judge", "rejected: passage", "rejected: validator ")


def comlq_passages(comlq_dir: Path) -> list[Doc]:
    path = comlq_dir / "corpus.jsonl"
    docs = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["_id"] in ARTICLES:
                docs.append(Doc(row["_id"], row["text"], row.get("title", ""),
                                {"article": ARTICLES[row["_id"]]}))
    return docs


@pytest.mark.slow
def test_build_with_embedded_model_completes_and_records_every_failure(tmp_path, comlq_dir):
    from irforge.llm import Engine

    docs = comlq_passages(comlq_dir)
    assert len(docs) == 3
    config = LogicalConfig(passage_sentences=0, types=("pin",), per_type=1,
                           group_key="article", hypothetical=True, judge=True)
    with Engine(cache_path=tmp_path / "cache.sqlite", max_tokens=256, max_reasks=1) as engine:
        summary = build_logical(BuildRunner.open(engine, tmp_path / "bench", "logical"), docs,
                                config)
        entry = engine.manifest_entry()

    bench = Benchmark(tmp_path / "bench")
    # a build that keeps nothing writes no queries file over a fresh folder
    queries = {q.query_id: q for q in bench.queries()} if bench.queries_path.exists() else {}
    failures = list(bench.failures())
    # a query is rejected by its own step or, below the judge's bar, by the judge step
    query_failures = {f.item_id: f for f in failures
                      if f.step in ("logical.query", "logical.judge")}
    assert summary.planned == 1
    assert set(queries) | set(query_failures) == {"lq-pin-0000"}
    assert not set(queries) & set(query_failures)
    assert summary.accepted == len(queries) and summary.failures == len(failures)
    for failure in failures:
        assert failure.reason and failure.reason.startswith(CHECKS), failure.reason
        assert failure.metadata.get("status") is not None or failure.reason.startswith("rejected")
        assert failure.raw_output is not None or failure.reason.startswith("llm ")
    for query in queries.values():  # whatever was accepted carries its structure
        assert query.metadata["fol"].startswith("V?")
        assert query.metadata["demo_grade"] is True
    step = bench.manifest()["steps"]["logical"]
    [row] = [r for r in step["yield"] if r["step"] == "logical.query"]
    assert row["attempted"] == 1
    # best of n: every sample of the planned query is one call (a re-ask adds one)
    assert step["engine"]["demo_grade"] is True
    assert step["engine"]["calls"] >= row["samples"] >= row["attempted"]
    assert "logical.query" in step["engine"]["prompts"]
    assert step["counts"]["planned"] == 1
    assert sum(entry["statuses"].values()) >= 1
    assert labels_path(bench.root).is_file()
    # Corpus: gold passages plus distractors from articles no query sampled.
    gold = {d for q in queries.values() for d in q.metadata["source_doc_ids"]}
    sampled = gold | {d for f in query_failures.values() for d in f.metadata["doc_ids"]}
    sampled_articles = {ARTICLES[d] for d in sampled}
    expected = gold | {d for d, article in ARTICLES.items() if article not in sampled_articles}
    assert {d.doc_id for d in bench.corpus() if not d.metadata.get("synthetic")} == expected
