"""`irforge build instructions` and `instructions-review` from the command line.

Bad input is refused before any LLM call. Faults (a refusal, a non-compliant answer) come from
the scripted OpenAI-compatible server on 127.0.0.1 through the real HTTP path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

EXPERT = ("Flood forecasting couples precipitation estimates with rainfall-runoff models to set "
          "river stage thresholds.")
PLAIN = "Forecasters watch rain and river levels and warn people before a flood."


def _cli(*args, env=None):
    env = {**(env or os.environ), "COLUMNS": "400"}  # rich wraps error lines at the width
    return subprocess.run([sys.executable, "-m", "irforge", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300)


def _pairs(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _row(doc_id, text, condition):
    return {"query_id": "q1", "query": "How do flood warnings work?", "doc_id": doc_id,
            "text": text, "dimension": "audience", "condition": condition}


def test_input_errors_are_clear(tmp_path):
    result = _cli("build", "instructions", tmp_path / "b")
    assert result.returncode == 2 and "exactly one of --pairs" in result.stderr
    bad = _pairs(tmp_path / "p.jsonl", [_row("d1", EXPERT, "expert"),
                                        _row("d2", PLAIN, "grown-up")])
    result = _cli("build", "instructions", tmp_path / "b", "--pairs", bad)
    assert result.returncode == 2
    assert "p.jsonl:2: field 'condition'" in result.stderr
    assert "Traceback" not in result.stderr


def script() -> Script:
    """Instructed and reversed queries for the layman unit; the hard-negative topic refused."""
    return Script(default=Action.answer({"document": "unused"}), rules=(
        Rule("Shape of the answer: {\"instructed_query\"", (Action.answer({
            "instructed_query": "How do flood warnings work? Please explain it for a layman."}),)),
        Rule("Shape of the answer: {\"reversed_query\"", (Action.answer({
            "reversed_query": "How do flood warnings work? Please do not write for a layman."}),)),
        Rule("related topic", (Action.refusal(),)),
    ))


def pairs(path, rows=None):
    """The pairs file of one expert and one plain passage for the same query."""
    return _pairs(path, rows or [_row("d1", EXPERT, "expert"), _row("d2", PLAIN, "layman")])


@pytest.fixture()
def server():
    with ScriptedServer(script()).start() as running:
        yield running


def test_build_through_http_records_faults_and_writes_the_folder(tmp_path, server):
    written = pairs(tmp_path / "p.jsonl")
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-not-a-secret", "PYTHONPATH": os.getcwd()}
    out = tmp_path / "bench"
    result = _cli("build", "instructions", out, "--pairs", written, "--model", "openai/scripted",
                  "--api-base", server.url, "--cache", tmp_path / "c.sqlite", env=env)
    assert result.returncode == 0, result.stderr
    assert "units=1" in result.stdout
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    reasons = {f["item_id"]: f["reason"] for f in failures}
    # the same answer fits only the layman unit; the expert one is rejected
    assert "does not mention the condition 'expert'" in reasons["q1-audience-expert"]
    assert reasons["q1--hardneg-1"].startswith("llm refused")
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert [q["_id"] for q in queries] == ["q1-audience-layman"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["steps"]["instructions"]["engine"]["model"] == "openai/scripted"
    assert "sk-test" not in (out / "manifest.json").read_text()

    run = tmp_path / "bm25.trec"
    run.write_text("q1-audience-layman Q0 d1 1 3.0 bm25\n", encoding="utf-8")
    result = _cli("build", "instructions-review", out, "--run", run, "--rank-cutoff", "1",
                  env=env)
    assert result.returncode == 0, result.stderr
    review = [json.loads(line) for line in
              (out / "instructions" / "review.jsonl").read_text().splitlines()]
    assert [row["doc_id"] for row in review] == ["d2"]


def test_a_reversal_may_describe_what_the_negated_condition_leaves(tmp_path):
    """"Not layman, written for specialists ..." says the dimension's other value in its own
    description: that is the reversal's input, not an echo of a prompt's worked example."""
    reversal = ("How do flood warnings work? I want documents that are not layman, written for "
                "specialists in technical, professional language.")
    answers = Script(default=Action.answer({"document": "unused"}), rules=(
        script().rules[0],
        Rule("Shape of the answer: {\"reversed_query\"", (Action.answer({
            "reversed_query": reversal}),)),
        Rule("related topic", (Action.refusal(),))))
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-not-a-secret", "PYTHONPATH": os.getcwd()}
    out = tmp_path / "bench"
    with ScriptedServer(answers).start() as running:
        result = _cli("build", "instructions", out, "--pairs", pairs(tmp_path / "p.jsonl"),
                      "--model", "openai/scripted", "--api-base", running.url,
                      "--cache", tmp_path / "c.sqlite", env=env)
    assert result.returncode == 0, result.stderr
    failures = (out / "failures.jsonl").read_text()
    assert "echo" not in failures
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert [q["_id"] for q in queries] == ["q1-audience-layman"]
