"""Judge controls through ``irforge label`` and ``irforge eval`` against the scripted server.

A judge that answers correctly passes its controls (exit 0, trusted); a judge that answers at
random, or calls every passage on the query's topic relevant (the near-miss controls catch
it), is caught (exit 8, untrusted), and eval refuses its qrels unless
``--allow-untrusted-qrels``, which every table then shows. Controls never enter qrels,
judgments or failures.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.core.errors import UntrustedLabels
from irforge.core.jsonl import iter_jsonl
from irforge.core.records import Doc, Query
from irforge.core.trust import read_judges
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

ROOT = Path(__file__).resolve().parents[3]
TOPICS = {
    "bikes": [("How often should a bicycle chain be oiled?",
               "Oil a bicycle chain every 300 kilometres, more often after riding in rain."),
              ("What tyre pressure suits a road bicycle?",
               "Road bicycle tyres are pumped to between 6 and 8 bar for a firm ride."),
              ("How do you stop disc brakes squealing?",
               "Squealing disc brakes are cleaned with alcohol and the pads bedded in again."),
              ("When should a bicycle helmet be replaced?",
               "Replace a bicycle helmet after any crash or after five years of use.")],
    "birds": [("Where do swifts sleep?",
               "Swifts sleep on the wing at night, gliding high above the ground."),
              ("Why do robins sing in winter?",
               "Robins sing through the winter to defend a feeding territory."),
              ("What do goldfinches eat?",
               "Goldfinches eat small seeds such as thistle and teasel heads."),
              ("How long do herons live?",
               "A grey heron in the wild usually lives for about five years.")],
}


def _bench(root: Path) -> list[tuple[str, str]]:
    """Eight queries on two topics, each with its real source passage; (query, passage)."""
    docs, queries, pairs = [], [], []
    for category, rows in TOPICS.items():
        for n, (question, passage) in enumerate(rows):
            doc_id = f"{category}.txt_{n}"
            docs.append(Doc(doc_id, passage))
            queries.append(Query(f"{category}-q{n}", question, {
                "intent": "QA", "category": category, "seed_doc_id": doc_id,
                "positive_doc_id": doc_id, "generated_by": "intents"}))
            pairs.append((question, passage))
    bench = Benchmark(root)
    bench.write_corpus(docs)
    bench.write_queries(queries)
    return pairs


def _prompt(question: str, passage: str) -> str:
    return f"Query: {question}\nPassage: {passage}"


def _topic(text: str) -> str:
    return next(topic for topic, rows in TOPICS.items() if any(text in row for row in rows))


def _script(pairs: list[tuple[str, str]], judge: str) -> Script:
    """``correct``: 3 for a query's own passage, 0 otherwise; ``random``: any grade, seeded;
    ``lenient``: 3 for any passage on the query's topic."""
    rng = random.Random(7)
    passages = [p for _, p in pairs]
    rules = []
    for question, own in pairs:
        for passage in passages:
            if judge == "lenient":
                score = 3 if _topic(passage) == _topic(question) else 0
            else:
                score = (3 if passage == own else 0) if judge == "correct" else \
                    rng.randint(0, 3)
            rules.append(Rule(_prompt(question, passage),
                              (Action.answer({"final_score": score}),)))
    return Script(default=Action.answer({"final_score": 0}), rules=tuple(rules))


def _label(root: Path, url: str, cache: Path) -> object:
    return CliRunner().invoke(build_app(), [
        "label", str(root), "--strategies", "zero_shot", "--model", "openai/scripted",
        "--api-base", url, "--cache", str(cache), "--no-label-probs"])


def _eval(root: Path, *extra: str) -> object:
    return CliRunner().invoke(build_app(), ["eval", str(root), "--no-plots", "--bootstrap",
                                            "50", "--trials", "50", *extra])


def test_a_correct_judge_passes_its_controls(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    pairs = _bench(root)
    with ScriptedServer(_script(pairs, "correct")) as server:
        labeled = _label(root, server.url, tmp_path / "c.sqlite")
    assert labeled.exit_code == 0, labeled.output
    assert "judge controls (19 control pairs mixed in): trusted" in labeled.output
    entry = read_judges(root)["relevance"]
    assert entry["status"] == "trusted" and entry["qrels_splits"] == ["test"]
    ensemble = entry["steps"]["relevance.ensemble"]
    assert ensemble["accuracy"] == 1.0 and ensemble["auc"] == 1.0
    assert (ensemble["positives"], ensemble["negatives"]) == (8, 11)
    # near-misses: the other bike passages (one document, bikes.txt) that share a word with
    # the query ("bicycle"); the disc-brake query and the bird queries share none, so get none
    assert {k: (v["controls"], v["accuracy"]) for k, v in ensemble["by_kind"].items()} == {
        "positive": (8, 1.0), "other-document": (8, 1.0), "near-miss": (3, 1.0)}
    bench = Benchmark(root)
    # controls never enter qrels, judgments or failures: only the 8 real pairs are there
    qrels = bench.qrels_dict()
    assert sum(len(docs) for docs in qrels.values()) == 8
    assert set(qrels) == {q.query_id for q in bench.queries()}
    assert {j.query_id for j in bench.judgments()} == set(qrels)
    assert not bench.failures_path.exists() or not list(bench.failures())
    log = [row for _, row in iter_jsonl(root / "relevance" / "controls.jsonl")]
    assert len(log) == 19
    assert {row["kind"] for row in log} == {"positive", "other-document", "near-miss"}
    assert all(row["control_id"] not in qrels for row in log)
    # negatives come from the other topic
    for row in log:
        if row["kind"] == "other-document":
            assert row["doc_id"].split(".")[0] != row["query_id"].split("-")[0]
    evaluated = _eval(root)
    assert evaluated.exit_code == 0, evaluated.output
    report = (root / "eval" / "report.md").read_text(encoding="utf-8")
    assert report.index("## Verdict") < report.index("## Means")
    assert "judge relevance (openai/scripted): trusted on its controls" in report
    assert "by kind: positive 8/8, other-document 8/8, near-miss 3/3" in report
    assert "intents: kept 8, rejected 0; judges: relevance trusted -> usable" in report
    assert "UNTRUSTED" not in report


def test_a_random_judge_is_caught_and_eval_refuses_its_qrels(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    pairs = _bench(root)
    with ScriptedServer(_script(pairs, "random")) as server:
        labeled = _label(root, server.url, tmp_path / "c.sqlite")
    assert isinstance(labeled.exception, UntrustedLabels), labeled.output
    assert labeled.exception.exit_code == 8  # what `irforge label` exits with (main())
    message = str(labeled.exception)
    assert "failed its control items" in message and "--allow-untrusted-qrels" in message
    assert "relevance.ensemble: accuracy" in message and "AUC" in message
    entry = read_judges(root)["relevance"]
    assert entry["status"] == "untrusted" and not entry["trusted"]
    assert entry["steps"]["relevance.ensemble"]["accuracy"] < 0.8
    assert Benchmark(root).qrels_path().exists()  # written, but marked untrusted
    refused = subprocess.run([sys.executable, "-m", "irforge", "eval", str(root)],
                             capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert refused.returncode == 8, refused.stderr
    assert "failed its control items" in refused.stderr and "Traceback" not in refused.stderr
    assert "--allow-untrusted-qrels" in refused.stderr
    allowed = _eval(root, "--allow-untrusted-qrels")
    assert allowed.exit_code == 0, allowed.output
    assert "UNTRUSTED QRELS" in allowed.output  # the rich table's title
    report = (root / "eval" / "report.md").read_text(encoding="utf-8")
    assert report.splitlines()[2] == "## Verdict (read this before any score)"
    assert "judge relevance (openai/scripted): UNTRUSTED: failed its controls" in report
    assert "not usable: judge relevance failed its control items" in report
    tables = [i for i, line in enumerate(report.splitlines()) if line.startswith("| system")]
    lines = report.splitlines()
    assert tables and all("UNTRUSTED QRELS" in lines[i - 2] for i in tables)
    assert "UNTRUSTED QRELS" in (root / "eval" / "table.tex").read_text(encoding="utf-8")
    results = json.loads((root / "eval" / "results.json").read_text(encoding="utf-8"))
    assert results["untrusted_allowed"] is True


def test_a_judge_that_calls_every_on_topic_passage_relevant_is_untrusted(
        tmp_path: Path) -> None:
    root = tmp_path / "bench"
    pairs = _bench(root)
    with ScriptedServer(_script(pairs, "lenient")) as server:
        labeled = _label(root, server.url, tmp_path / "c.sqlite")
    assert isinstance(labeled.exception, UntrustedLabels), labeled.output
    entry = read_judges(root)["relevance"]
    assert entry["status"] == "untrusted"
    ensemble = entry["steps"]["relevance.ensemble"]
    kinds = {k: v["accuracy"] for k, v in ensemble["by_kind"].items()}
    # it passes the easy kinds, and its overall figures (accuracy 0.84, AUC 0.86) would pass
    # the bar: the near-misses alone expose it
    assert kinds == {"positive": 1.0, "other-document": 1.0, "near-miss": 0.0}
    assert ensemble["accuracy"] >= 0.8 and ensemble["auc"] >= 0.8
    assert entry["reasons"] == ["near-miss accuracy 0.00 (0/3; interval high 0.56 < 0.8)"]
    assert "near-miss 0/3" in str(labeled.exception)


def test_switching_controls_off_is_recorded_as_not_verified(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    pairs = _bench(root)
    with ScriptedServer(_script(pairs, "random")) as server:
        labeled = CliRunner().invoke(build_app(), [
            "label", str(root), "--strategies", "zero_shot", "--model", "openai/scripted",
            "--api-base", server.url, "--cache", str(tmp_path / "c.sqlite"), "--no-controls"])
    assert labeled.exit_code == 0, labeled.output
    assert "NOT VERIFIED" in labeled.output and "controls were switched off" in labeled.output
    assert read_judges(root)["relevance"]["status"] == "untested"
    evaluated = _eval(root)
    assert evaluated.exit_code == 0
    report = (root / "eval" / "report.md").read_text(encoding="utf-8")
    assert "NOT VERIFIED" in report and "usable with care" in report
