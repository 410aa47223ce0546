"""The verdict panel's figures: judge trust per control kind, rejections by validator with the
rejected text, label distribution, written vs kept, system intervals and the pool warning."""

from __future__ import annotations

import json
from pathlib import Path

from irforge.core.records import Failure, Query
from irforge.core.trust import record_judge
from irforge.viewer.verdict import (
    judges,
    label_distribution,
    pool_warning,
    query_form,
    rejected_text,
    rejections,
    shape,
    system_spread,
    validator_class,
    written_queries,
)

GROUNDING = Failure("intents.query", "QA_0001",
                    "rejected: validator grounding: 66 words not in the seed passage",
                    json.dumps({"query": "when was the bridge rebuilt", "need": "a date"}),
                    {"intent": "QA", "category": "C1"})


def test_judges_carry_status_and_accuracy_per_control_kind(tmp_path: Path) -> None:
    record_judge(tmp_path, "relevance", {
        "status": "trusted", "trusted": True, "model": "m", "deciding_step": "relevance.ensemble",
        "lines": ["relevance.ensemble: accuracy 0.95"], "reasons": [], "qrels_splits": ["test"],
        "steps": {"relevance.ensemble": {"by_kind": {
            "positive": {"controls": 8, "correct": 8, "unanswered": 0},
            "near-miss": {"controls": 6, "correct": 4, "unanswered": 1}}}}})
    (entry,) = judges(tmp_path)
    assert entry["status"] == "trusted" and entry["step"] == "relevance.ensemble"
    assert [(k["kind"], k["correct"], k["controls"]) for k in entry["kinds"]] == [
        ("near-miss", 4, 6), ("positive", 8, 8)]
    assert judges(tmp_path / "none") == []
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "judge_controls.json").write_text("{oops", encoding="utf-8")
    assert judges(tmp_path / "bad")[0]["status"] == "unreadable"


def test_rejections_name_the_validator_and_keep_the_rejected_text() -> None:
    assert validator_class(GROUNDING.reason) == "grounding"
    assert validator_class("llm invalid: not JSON") == "llm invalid"
    assert validator_class("rejected: too short") == "too short"
    # one class for every item, whatever its own values
    assert validator_class("does not mention the condition 'expert' (expected one of a, b)") \
        == validator_class("does not mention the condition 'novice' (expected one of c)") \
        == "does not mention the condition …"
    assert validator_class("rejected: only 3 words") == validator_class("rejected: only 12 words")
    assert rejected_text(GROUNDING) == "when was the bridge rebuilt"
    assert rejected_text(Failure("s", "i", "llm invalid: x", "plain output")) == "plain output"
    assert rejections([GROUNDING, GROUNDING, Failure("s", "i", "llm invalid: x")]) == [
        {"step": "intents.query", "validator": "grounding", "n": 2},
        {"step": "s", "validator": "llm invalid", "n": 1}]
    # a judge's failure names a pair, not a written query
    judged = Failure("relevance.ensemble", "q::d", "x", json.dumps({"query": "q"}))
    assert written_queries([GROUNDING, judged]) == [
        ("when was the bridge rebuilt", {"intent": "QA", "category": "C1"})]


def test_written_vs_kept_by_length_form_and_intent() -> None:
    kept = [Query("a", "Is the bridge open?", {"intent": "QA", "category": "C1"}),
            Query("b", "The bridge closed in 2020.", {"intent": "FC"})]
    table = shape(kept, written_queries([GROUNDING]))
    assert table["form"] == {"question": {"written": 2, "kept": 1},
                             "statement": {"written": 1, "kept": 1}}
    assert table["group"]["QA/C1"] == {"written": 2, "kept": 1}
    assert table["length"]["1-4 words"] == {"written": 1, "kept": 1}
    assert query_form("flood sirens quay street") == "keywords"


def test_label_distribution_and_system_intervals() -> None:
    assert label_distribution({"q1": {"a": 0, "b": 3}, "q2": {"c": 0}}) == {"0": 2, "3": 1}
    scores = {f"q{i}": {"bm25": i / 10, "dense": 0.5} for i in range(10)}
    bm25, dense = system_spread(scores, ["bm25", "dense", "absent"])
    assert bm25["mean"] == 0.45 and bm25["low"] < 0.45 < bm25["high"]
    assert dense["low"] == dense["high"] == 0.5 and dense["queries"] == 10


def test_the_pool_warning_names_the_systems_that_made_the_pool() -> None:
    warning = pool_warning(["bm25", "dense"], ["bm25", "dense-hnsw", "splade"])
    assert "bm25, dense-hnsw are also evaluated" in warning and "splade" not in warning
    assert pool_warning(["bm25"], ["splade"]) == ""
    assert pool_warning([], ["bm25"]) == ""
