"""``irforge build multicon`` through the real CLI, litellm and HTTP against the scripted server.

The server answers like a well-behaved model, except for injected faults (a refusal, a reply
cut off at the token limit, repeated sentences that the engine re-asks about); each fault must
end up in failures.jsonl or be repaired, and the rest must be built.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.check.folder import check_benchmark
from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.generators.multicon.docs import (
    NOVEL,
    NOVEL_CONDITION_IDS,
    NOVEL_CONDITIONS,
    NOVEL_DESCRIPTIVE,
    NOVEL_NEGATIVES,
    descriptive_marker,
)

FERRY = ("The Quiet Ferry is a 2003 comedy film directed by Lotte Brand. "
         "It was shot on a ferry crossing between two small islands. "
         "The lead role is played by the actor Tomas Reyes. "
         "The film premiered at a festival in Rotterdam.")


PHRASES = ["1987 novel by Varga", "beekeeper on an island", "won the Harbour Prize"]


def _script() -> Script:
    rules = [
        Rule("Mara's brother returns", (  # first a repeated sentence id: the engine re-asks
            Action.answer({"ids": [1, 1, 1]}),
            Action.answer({"ids": NOVEL_CONDITION_IDS}))),
        Rule("The Quiet Ferry is a 2003", (Action.refusal("I will not."),)),
        Rule("mentions all 2 conditions", (Action.truncated('{"query": "a 1987 nov'),)),
    ]
    for sentence, phrase in zip(NOVEL_CONDITIONS, PHRASES, strict=True):
        prompt = f'Sentence: {sentence}\n\nAnswer with a JSON object with one key, "phrase"'
        rules.append(Rule(prompt, (Action.answer({"phrase": phrase}),)))
    for k in (1, 2, 3):
        rules.append(Rule(descriptive_marker(k), (Action.answer(
            {"query": NOVEL_DESCRIPTIVE[k]}),)))
    for original, negative in zip(NOVEL_CONDITIONS, NOVEL_NEGATIVES, strict=True):
        rules.append(Rule(f"Sentence: {original}", (Action.answer({"sentence": negative}),)))
    return Script(default=Action.answer({"unexpected": True}), rules=tuple(rules))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.jsonl"
    rows = [{"_id": "salt", "title": "The Salt Orchard", "text": NOVEL},
            {"_id": "ferry", "title": "The Quiet Ferry", "text": FERRY}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_build_over_http_builds_what_it_can_and_logs_each_fault(tmp_path, corpus):
    bench_dir = tmp_path / "bench"
    with ScriptedServer(_script()) as server:
        args = ["build", "multicon", str(bench_dir), "--corpus", str(corpus), "--n", "3",
                "--domain", "books",
                "--pad-to", "80", "--model", "openai/scripted", "--api-base", server.url,
                "--cache", str(tmp_path / "cache.sqlite")]
        result = CliRunner().invoke(build_app(), args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        requests = len(server.log)
        assert sum("Mara's brother returns" in e.first_user for e in server.log) == 2
        # a re-run is answered from the cache: no new request reaches the server
        again = CliRunner().invoke(build_app(), args, catch_exceptions=False)
        assert again.exit_code == 0 and len(server.log) == requests
    assert "sources=1" in result.output and "DEMO GRADE" not in result.output

    bench = Benchmark(bench_dir)
    assert check_benchmark(bench_dir).ok
    assert sorted(q.query_id for q in bench.queries()) == [
        "salt-q1-desc", "salt-q1-inst", "salt-q2-inst", "salt-q3-desc", "salt-q3-inst"]
    docs = {d.doc_id: d for d in bench.corpus()}
    assert sorted(docs) == ["salt-hn0", "salt-hn1", "salt-hn2", "salt-pos"]
    assert all(len(d.text.split()) >= 80 for d in docs.values())
    failures = {f.item_id: f for f in bench.failures()}
    assert set(failures) == {"ferry", "salt-q2-desc"}
    assert failures["ferry"].reason.startswith("llm refused")
    assert failures["salt-q2-desc"].reason.startswith("llm truncated")
    assert failures["salt-q2-desc"].raw_output == '{"query": "a 1987 nov'
    manifest = bench.manifest()["steps"]["multicon"]
    assert manifest["engine"]["model"] == "openai/scripted"
    # the selector chose both documents; every kept query records why its source was chosen
    assert manifest["details"]["sources"]["chosen"] == 2
    assert all(q.metadata["source"]["id"] == "salt" and q.metadata["source"]["score"] > 0
               and "attribute score" in q.metadata["source"]["reason"] for q in bench.queries())
    assert manifest["counts"]["failures"] == 2
    task1 = [json.loads(line) for line in (bench_dir / "multicon" / "task1.jsonl").open()]
    assert {(r["query_id"], r["hard_negative"]) for r in task1} >= {
        ("salt-q1-inst", "salt-hn0"), ("salt-q3-desc", "salt-hn2")}
    # the yield table ends the run and is kept in the manifest
    assert "attempted  accepted" in result.output and "multicon.hard_negative" in result.output
    table = {row["step"]: row for row in manifest["yield"]}
    assert table["multicon.conditions"]["attempted"] == 2
    assert table["multicon.conditions"]["accepted"] == 1
    assert table["multicon.conditions"]["rejected"] == {"llm refused": 1}
    assert table["multicon.descriptive_query"]["rejected"] == {"llm truncated": 1}


def test_a_build_that_keeps_nothing_exits_3_with_the_reasons(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"_id": "ferry", "title": "The Quiet Ferry", "text": FERRY})
                      + "\n", encoding="utf-8")
    with ScriptedServer(_script()) as server:
        result = CliRunner().invoke(build_app(), [
            "build", "multicon", str(tmp_path / "bench"), "--corpus", str(corpus), "--n", "3",
            "--domain", "books",
            "--model", "openai/scripted", "--api-base", server.url,
            "--cache", str(tmp_path / "cache.sqlite")])
    error = result.exception
    assert isinstance(error, EmptyResultError) and error.exit_code == 3, result.output
    assert "0 MultiConIR source documents accepted" in str(error)
    assert "llm refused (x1): the model refuses the prompt" in str(error)
    assert "attempted  accepted" in result.output  # the table is printed before the error
    assert (tmp_path / "bench" / "failures.jsonl").read_text().count("llm refused") == 1
