"""Cross-area: what a generator writes over real HTTP, ``evaluate_benchmark`` reads as is.

Both builds run through the real engine (litellm, HTTP) against the scripted
OpenAI-compatible server; no task or label file is written by hand, so a drift between a
generator's output format and the eval readers fails here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.check.folder import check_benchmark
from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.core.records import Doc
from irforge.eval.runner import evaluate_benchmark
from irforge.generators.logical.build import build_logical
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.labels import labels_path, read_violations
from irforge.generators.logical.method import Config as LogicalConfig
from irforge.llm import Engine
from irforge.steps.runner import BuildRunner
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.generators.logical.renamed import _renamed, renamed_output
from tests.generators.multicon.docs import (
    NOVEL,
    NOVEL_CONDITION_IDS,
    NOVEL_CONDITIONS,
    NOVEL_DESCRIPTIVE,
    NOVEL_NEGATIVES,
    descriptive_marker,
)

N = 3


def _multicon_script() -> Script:
    """Well-formed answers for every MultiConIR step, so the source passes every validator."""
    rules = [Rule("Mara's brother returns", (Action.answer({"ids": NOVEL_CONDITION_IDS}),))]
    phrases = ["1987 novel by Varga", "beekeeper on an island", "won the Harbour Prize"]
    for sentence, phrase in zip(NOVEL_CONDITIONS, phrases, strict=True):
        prompt = f'Sentence: {sentence}\n\nAnswer with a JSON object with one key, "phrase"'
        rules.append(Rule(prompt, (Action.answer({"phrase": phrase}),)))
    for k in range(1, N + 1):
        rules.append(Rule(descriptive_marker(k), (Action.answer(
            {"query": NOVEL_DESCRIPTIVE[k]}),)))
    for original, negative in zip(NOVEL_CONDITIONS, NOVEL_NEGATIVES, strict=True):
        rules.append(Rule(f"Sentence: {original}", (Action.answer({"sentence": negative}),)))
    return Script(default=Action.answer({"unexpected": True}), rules=tuple(rules))


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8")]


def test_multicon_build_over_http_is_evaluated_with_the_paper_task_metrics(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    rows = [{"_id": "salt", "title": "The Salt Orchard", "text": NOVEL}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    bench_dir = tmp_path / "bench"
    with ScriptedServer(_multicon_script()) as server:
        result = CliRunner().invoke(build_app(), [
            "build", "multicon", str(bench_dir), "--corpus", str(corpus), "--n", str(N),
            "--domain", "books",
            "--model", "openai/scripted", "--api-base", server.url,
            "--cache", str(tmp_path / "cache.sqlite")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert check_benchmark(bench_dir).ok
    assert list(Benchmark(bench_dir).failures()) == []
    for name in ("task1", "task2", "task3"):
        assert _rows(bench_dir / "multicon" / f"{name}.jsonl"), f"{name}.jsonl is empty"

    results = evaluate_benchmark(bench_dir, ["bm25:okapi"], metrics=["ndcg@10"])
    system = results.systems[0]
    tasks = system.tasks
    assert set(tasks["win_rate_by_k"]) == set(range(1, N + 1))
    assert all(0.0 <= v <= 1.0 for v in tasks["win_rate_by_k"].values())
    assert tasks["adjacent_win_rate"] and all(
        0.0 <= v <= 1.0 for v in tasks["adjacent_win_rate"].values())
    assert 0.0 <= tasks["flip_rate"] <= 1.0
    assert set(system.per_conditions) == {str(k) for k in range(1, N + 1)}
    assert all(0.0 <= m["ndcg@10"] <= 1.0 for m in system.per_conditions.values())


# the demonstrations with every name changed (answers that repeat a prompt's demonstration
# are rejected as echoes)
FILMS = Doc("films", _renamed(DEMONSTRATIONS["2in"].passage), "Films of Nadia Okafor")
HYPOTHETICAL_2IN = {"title": "Copper Lake", "text": (
    "Copper Lake is a 2011 drama that Nadia Okafor directed; the jury gave it the Silver Gull "
    "award for its long ferry scenes and its quiet cast.")}
HYPOTHETICAL_PIN = {"title": "Ivo Lenz", "text": (
    "Ivo Lenz is an actor born in Harwick who starred in Copper Lake, the film Nadia "
    "Okafor directed in 2011, playing a ferry captain.")}
LOGICAL_SCRIPT = Script(default=Action.answer("no rule matched"), rules=(
    Rule("Query type: pin", (Action.answer(renamed_output("pin")),)),
    Rule("Query type: 2in", (Action.answer(renamed_output("2in")),)),
    Rule("Search query (pin)", (Action.answer(HYPOTHETICAL_PIN),)),
    Rule("Search query (2in)", (Action.answer(HYPOTHETICAL_2IN),)),
))


def test_logical_build_over_http_is_evaluated_with_lsnc_and_per_type_ndcg(tmp_path):
    bench_dir = tmp_path / "bench"
    config = LogicalConfig(passage_sentences=0, types=("pin", "2in"), per_type=1, hypothetical=True)
    with ScriptedServer(LOGICAL_SCRIPT) as server, Engine(
            "openai/scripted", api_base=server.url, cache_path=tmp_path / "cache.sqlite",
            progress=False, backoff_initial=0.01, backoff_max=0.05, timeout=2.0) as engine:
        build_logical(BuildRunner.open(engine, bench_dir, "logical"), [FILMS], config)
    bench = Benchmark(bench_dir)
    assert list(bench.failures()) == []
    queries = {q.query_id: q.metadata["type"] for q in bench.queries()}
    assert queries == {"lq-pin-0000": "pin", "lq-2in-0000": "2in"}
    violations = read_violations(labels_path(bench_dir))
    assert {q: {d for d, v in docs.items() if v} for q, docs in violations.items()} == {
        "lq-pin-0000": {"lq-pin-0000-hyp"}, "lq-2in-0000": {"lq-2in-0000-hyp"}}

    results = evaluate_benchmark(bench_dir, ["bm25:okapi"], metrics=["ndcg@10"])
    system = results.systems[0]
    assert system.tasks["lsnc_queries"] == 2
    # BM25 retrieves all three passages (each shares terms with both queries), so each query
    # has its one violating passage in the top 100: LSNC = -log(2/101) / log(101)
    assert system.tasks["lsnc@100"] == pytest.approx(-math.log(2 / 101) / math.log(101))
    assert set(system.per_group) == {"pin", "2in"}
    assert all(0.0 < m["ndcg@10"] <= 1.0 for m in system.per_group.values())
    # the value comes from the generator's labels file: without it there is no LSNC
    labels_path(bench_dir).unlink()
    again = evaluate_benchmark(bench_dir, ["bm25:okapi"], metrics=["ndcg@10"])
    assert "lsnc@100" not in again.systems[0].tasks
