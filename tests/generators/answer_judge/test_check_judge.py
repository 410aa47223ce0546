"""``irforge check --judge-model`` against the scripted OpenAI-compatible server.

A judge that tells a query's own passage from the others is trusted and flags the query whose
labelled passage does not answer it (``judge.answers``) while keeping the ones that do; a
judge that says "yes" to every on-topic passage fails its near-miss controls, is reported
UNTRUSTED (exit 8) and flags nothing. Killed mid-run and run again, no finished call is sent
again; no written file holds the API key.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.trust import read_judges
from irforge.llm.cache import ResponseCache
from irforge.testing.crash import kill_after_requests
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

ROOT = Path(__file__).resolve().parents[3]
TOPICS = {
    "bikes": [("How often should a bicycle chain be oiled?",
               "Oil a bicycle chain every 300 kilometres, more often after riding in rain."),
              ("What tyre pressure suits a road bicycle?",
               "Road bicycle tyres are pumped to between 6 and 8 bar for a firm ride."),
              ("How do you stop bicycle disc brakes squealing?",
               "Squealing bicycle disc brakes are cleaned with alcohol and the pads bedded in."),
              ("When should a bicycle helmet be replaced?",
               "Replace a bicycle helmet after any crash or after five years of use.")],
    "birds": [("Where do swifts sleep?",
               "Swifts sleep on the wing at night, gliding high above the ground."),
              ("Why do robins sing in winter?",
               "Robins sing through the winter to defend a feeding territory."),
              ("What do goldfinches eat?",
               "Goldfinches eat small seeds such as thistle and teasel heads."),
              ("How long do grey herons live?",
               "A grey heron in the wild usually lives for about five years.")],
}
# a query whose labelled passage is on its topic but does not answer it (a meaning fault the
# lexical rules let through: every content word of it is in the passage)
UNANSWERED = ("bikes-bad", "How many kilometres does a bicycle chain last?", "bikes.txt_0")
KEY = "k3y6ch"


def _bench(root: Path) -> None:
    """Eight queries on two topics, each labelled with its own source passage, and one query
    labelled with a passage that does not answer it."""
    (root / "qrels").mkdir(parents=True)
    docs, queries, qrels = [], [], []
    for category, rows in TOPICS.items():
        for n, (question, passage) in enumerate(rows):
            doc_id = f"{category}.txt_{n}"
            docs.append({"_id": doc_id, "title": "", "text": passage})
            queries.append({"_id": f"{category}-q{n}", "text": question, "metadata": {
                "intent": "QA", "category": category, "seed_doc_id": doc_id}})
            qrels.append((f"{category}-q{n}", doc_id))
    query_id, text, doc_id = UNANSWERED
    queries.append({"_id": query_id, "text": text, "metadata": {"intent": "QA"}})
    qrels.append((query_id, doc_id))
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in qrels))


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _prompt(question: str, passage: str) -> str:
    return f"Query: {question}\n\nPassage 1:\n{passage}\n"


def _script(judge: str, latency: float = 0.0, api_key: str | None = None) -> Script:
    """``discriminating``: yes only for a query's own passage; ``lenient``: yes for every
    passage on the query's topic."""
    questions = [(q, own, topic) for topic, rows in TOPICS.items() for q, own in rows]
    questions.append((UNANSWERED[1], None, "bikes"))
    rules = []
    for question, own, topic in questions:
        for other, rows in TOPICS.items():
            for _, passage in rows:
                yes = passage == own if judge == "discriminating" else other == topic
                rules.append(Rule(_prompt(question, passage), (Action.answer({
                    "reason": "It says so." if yes else "It does not say that.",
                    "answers": "yes" if yes else "no"}),)))
    return Script(default=Action.answer({"reason": "Off topic.", "answers": "no"}),
                  rules=tuple(rules), latency=latency, api_key=api_key)


def _exit(result) -> int:
    """The exit status a user sees (an irforge error carries its own)."""
    return getattr(result.exception, "exit_code", None) or result.exit_code


def _check(root: Path, url: str, *extra: str):
    return CliRunner().invoke(build_app(), [
        "check", str(root), "--judge-model", "openai/scripted", "--api-base", url,
        "--cache", str(root.parent / "cache.sqlite"), *extra])


def test_a_discriminating_judge_flags_the_unanswered_query_and_keeps_the_others(
        tmp_path: Path) -> None:
    root = tmp_path / "bench"
    _bench(root)
    plain = CliRunner().invoke(build_app(), ["check", str(root), "--json"])
    assert UNANSWERED[0] not in json.loads(plain.output)["invalid_queries"]
    with ScriptedServer(_script("discriminating")) as server:
        result = _check(root, server.url, "--json")
    assert result.exit_code == 1, result.output
    summary = json.loads(result.output)
    assert summary["invalid_queries"] == [UNANSWERED[0]]
    assert summary["rejected_by_validator"] == {"judge.answers": 1}
    judge = summary["judge"]["bench"]
    assert judge["status"] == "trusted" and judge["flagged"] == 1
    [problem] = summary["problems"]
    assert problem["validator"] == "judge.answers" and problem["line"] == 9
    entry = read_judges(root)["check.answers"]
    assert entry["status"] == "trusted" and entry["qrels_splits"] == []
    kinds = {k: (v["controls"], v["accuracy"])
             for k, v in entry["steps"]["check.answers"]["by_kind"].items()}
    assert kinds["positive"] == (8, 1.0) and kinds["other-document"] == (8, 1.0)
    assert kinds["near-miss"][0] >= 3 and kinds["near-miss"][1] == 1.0
    verdicts = {row["query_id"]: row for row in _rows(root / "check" / "judge.jsonl")}
    assert verdicts[UNANSWERED[0]]["flagged"] and verdicts[UNANSWERED[0]]["answers"] == "no"
    assert sum(row["flagged"] for row in verdicts.values()) == 1
    controls = list(_rows(root / "check" / "judge_controls.jsonl"))
    assert len(controls) == judge["controls"] and all(c["query_id"] != UNANSWERED[0]
                                                      for c in controls)
    text = CliRunner().invoke(build_app(), ["check", str(root)])  # no judge: nothing asked
    assert text.exit_code == 0, text.output


def test_a_judge_that_says_yes_to_every_on_topic_passage_is_untrusted_and_flags_nothing(
        tmp_path: Path) -> None:
    root = tmp_path / "bench"
    _bench(root)
    with ScriptedServer(_script("lenient")) as server:
        result = _check(root, server.url)
    assert _exit(result) == 8, result.output
    assert "its verdicts flag nothing: the judge is UNTRUSTED" in result.output
    assert "near-miss 0/" in result.output
    assert "judge.answers" not in result.output.replace("entry check.answers", "")
    entry = read_judges(root)["check.answers"]
    assert entry["status"] == "untrusted"
    assert any(reason.startswith("near-miss accuracy 0.00") for reason in entry["reasons"])
    rows = list(_rows(root / "check" / "judge.jsonl"))
    assert rows and not any(row["flagged"] for row in rows)
    assert all(row["judge_status"] == "untrusted" for row in rows)


def test_a_killed_judged_check_resumes_without_sending_a_finished_call_again(
        tmp_path: Path) -> None:
    root = tmp_path / "bench"
    _bench(root)
    cache = tmp_path / "cache.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with ScriptedServer(_script("discriminating", latency=0.3)) as server:
        worker = subprocess.Popen(
            [sys.executable, "-m", "irforge", "check", str(root), "--judge-model",
             "openai/scripted", "--api-base", server.url, "--cache", str(cache),
             "--concurrency", "2"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE)
        kill_after_requests(worker, server, 8)
        first = [entry.first_user for entry in server.log]
        stored = len(list(ResponseCache(cache).stored_keys()))
        assert stored >= 4, "answers must be committed as they arrive"
        result = _check(root, server.url)
        again = [entry.first_user for entry in server.log[len(first):]]
    assert result.exit_code == 1, result.output
    everything = set(first) | set(again)
    assert len(again) == len(set(again)) == len(everything) - stored, \
        "a finished call was sent again"
    assert "1 flagged as judge.answers" in result.output


def test_no_written_file_holds_the_api_key(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    _bench(root)
    question, passage = TOPICS["birds"][0]
    leak = Rule(_prompt(question, passage), (Action.echo_in_answer(
        {"reason": "Sent with {authorization}.", "answers": "yes"}),))
    script = _script("discriminating", api_key=KEY)
    script = Script(default=script.default, rules=(leak, *script.rules), api_key=KEY)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": KEY,
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with ScriptedServer(script) as server:
        done = subprocess.run(
            [sys.executable, "-m", "irforge", "check", str(root), "--judge-model",
             "openai/scripted", "--api-base", server.url, "--cache",
             str(root / "cache.sqlite")], cwd=tmp_path, env=env, capture_output=True,
            text=True, timeout=300)
        assert server.count(question) >= 1
    assert done.returncode in (1, 8), done.stdout + done.stderr
    assert (root / "check" / "judge.jsonl").is_file()
    leaked = [p for p in root.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaked == []
    assert KEY not in done.stdout + done.stderr


def test_bad_judge_options_exit_2_naming_the_flag_before_any_call(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    _bench(root)
    runner = CliRunner()
    with ScriptedServer(_script("discriminating")) as server:
        for args, flag in ((["--judge-model", "openai/x", "--api-base", "ftp://h"],
                            "--api-base"), (["--judge-model", " "], "--judge-model"),
                           (["--api-base", server.url], "--api-base"),
                           (["--judge-model", "gguf:/no/such.gguf"], "--judge-model")):
            result = runner.invoke(build_app(), ["check", str(root), *args])
            assert _exit(result) == 2 and flag in str(result.exception), args
        assert len(server.log) == 0
    assert not (root / "check").exists()
