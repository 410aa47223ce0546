"""Gold questions: the judge's control items go out with a round (indistinguishable tasks),
come back scored per annotator, never reach judgments or qrels, and `audit agreement` prints
each annotator's accuracy on them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.annotation.errors import AnnotationError
from irforge.annotation.files import export_tasks, import_tasks
from irforge.annotation.gold import annotator_accuracy, gold_count, gold_path
from irforge.annotation.labeling import choice_result, get_job
from irforge.cli.app import build_app, main
from irforge.core.beir import read_qrels
from irforge.core.jsonl import iter_jsonl, write_jsonl
from tests.annotation.helpers import MORE_CONTROLS, relevance_bench

CONTROLS = [  # what `irforge label` writes to relevance/controls.jsonl
    {"control_id": "i0a1b2c3d4e5f", "query_id": "q0", "query": "flood warning region 0",
     "doc_id": "d0", "kind": "positive", "expected": 1, "intent": "QA",
     "passage": "Passage 0 about flood warnings in region 0.",
     "labels": {"zero_shot": 3.0, "cot": 2.0, "multi_dim": 3.0, "ensemble": 2.67}},
    {"control_id": "i9f8e7d6c5b4a", "query_id": "q0", "query": "flood warning region 0",
     "doc_id": "d5", "kind": "other-document", "expected": 0, "intent": "QA",
     "passage": "Passage 5 about flood warnings in region 5.",
     "labels": {"zero_shot": 2.0, "cot": 2.0, "multi_dim": 1.0, "ensemble": 1.67}},
]


def _annotate(tasks: list[dict], job, answer) -> list[dict]:
    """An export in which annotator 1 answers ``answer(task)`` and annotator 2 always 0."""
    out = []
    for number, task in enumerate(tasks, start=1):
        annotations = [{"id": number * 10 + k, "completed_by": k + 1,
                        "updated_at": "2026-01-01T00:00:00Z", "was_cancelled": False,
                        "result": choice_result(job, job.choice_for(label))}
                       for k, label in enumerate((answer(task), 0))]
        out.append({"id": number, "data": task["data"], "annotations": annotations,
                    "predictions": task.get("predictions", [])})
    return out


def test_gold_questions_go_out_mixed_in_and_come_back_scored(tmp_path: Path) -> None:
    bench = relevance_bench(tmp_path / "bench", queries=6)
    write_jsonl(bench.root / "relevance" / "controls.jsonl", CONTROLS)
    job = get_job("relevance")
    # a review round shows predictions: gold tasks must carry them like every other task
    files = export_tasks(bench, job, tmp_path / "round1.json", n=4, seed=3,
                         show_predictions=True, gold_share=0.5)
    tasks = json.loads(files.tasks.read_text(encoding="utf-8"))
    assert len(tasks) == 6  # 4 sampled (q0 not among them) + 2 gold
    # a gold task has the same fields and predictions as any other: nothing marks it
    assert len({tuple(sorted(task["data"])) for task in tasks}) == 1
    assert all(task["predictions"] for task in tasks)
    assert not any("gold" in json.dumps(task) or "expected" in json.dumps(task["data"])
                   for task in tasks)
    keys = [task["data"]["item_key"] for task in tasks]
    gold_keys = {row["item_key"]: row["expected"] for _, row in iter_jsonl(gold_path(bench))}
    assert set(gold_keys) <= set(keys) and len(gold_keys) == 2
    assert [k in gold_keys for k in keys] != [False] * 4 + [True] * 2  # shuffled in

    def right(task: dict) -> int:  # annotator 1 knows the answers
        return 3 if gold_keys.get(task["data"]["item_key"]) == 1 else 0

    export = tmp_path / "export.json"
    export.write_text(json.dumps(_annotate(tasks, job, right)), encoding="utf-8")
    result = import_tasks(bench, job, export)
    assert result.tasks == 4 and result.new_labels == 8  # gold tasks taken out first
    human = {q.query_id for q in read_qrels(bench.qrels_path("human"))}
    assert human and not human & {row["control_id"] for row in CONTROLS}
    assert not {j.query_id for j in bench.judgments()} & {row["control_id"] for row in CONTROLS}
    rows = [row for _, row in iter_jsonl(bench.root / "annotation" /
                                         "relevance_gold_answers.jsonl")]
    assert len(rows) == 4
    accuracy = {a["annotator"]: a for a in annotator_accuracy(rows)}
    assert accuracy["1"]["accuracy"] == 1.0 and accuracy["2"]["accuracy"] == 0.5
    assert accuracy["2"]["low"] < 0.5 < accuracy["2"]["high"]

    audit = CliRunner().invoke(build_app(), ["audit", "agreement", str(bench.root)])
    assert audit.exit_code == 0, audit.output
    assert "Annotators on gold questions" in audit.output
    saved = json.loads((bench.root / "audits" / "agreement_relevance.json").read_text())
    assert [(g["annotator"], g["correct"], g["gold"]) for g in saved["gold_accuracy"]] == [
        ("1", 2, 2), ("2", 1, 2)]


def test_a_gold_task_identical_to_a_sampled_real_one_is_left_out(tmp_path: Path) -> None:
    bench = relevance_bench(tmp_path / "bench", queries=6)
    write_jsonl(bench.root / "relevance" / "controls.jsonl", CONTROLS)
    # seed 1 samples q0: the positive control shows exactly the real task q0/d0
    files = export_tasks(bench, get_job("relevance"), tmp_path / "r.json", n=4, seed=1,
                         gold_share=0.5)
    tasks = json.loads(files.tasks.read_text(encoding="utf-8"))
    shown = [(t["data"]["query"], t["data"]["passage"]) for t in tasks]
    assert (files.sampled, files.gold) == (4, 1) and len(set(shown)) == len(shown) == 5


def test_gold_count_keeps_gold_a_minority() -> None:
    assert [gold_count(real) for real in (1, 3, 4, 10, 100)] == [0, 0, 1, 2, 18]
    assert all(gold_count(real) / (gold_count(real) + real) <= 0.2 for real in range(1, 300))
    assert gold_count(3, share=0.5) == 3 and gold_count(10, share=0) == 0
    with pytest.raises(AnnotationError, match=r"--gold-share must be between 0 and 0\.5"):
        gold_count(10, share=0.7)


def test_gold_tasks_look_like_real_ones(tmp_path: Path) -> None:
    bench = relevance_bench(tmp_path / "bench", queries=12)
    write_jsonl(bench.root / "relevance" / "controls.jsonl", [*CONTROLS, *MORE_CONTROLS])
    job = get_job("relevance")
    files = export_tasks(bench, job, tmp_path / "round.json", n=10, seed=2)
    assert (files.sampled, files.gold, files.count) == (10, 2, 12)  # 17% gold, default share
    tasks = json.loads(files.tasks.read_text(encoding="utf-8"))
    gold = {row["item_key"] for _, row in iter_jsonl(gold_path(bench))}
    golden = [task["data"] for task in tasks if task["data"]["item_key"] in gold]
    real = [task["data"] for task in tasks if task["data"]["item_key"] not in gold]
    assert len(golden) == 2 and len(real) == 10
    # the same field set, the same id scheme, the intent explained the same way
    assert {tuple(sorted(data)) for data in golden} == {tuple(sorted(data)) for data in real}
    folder = {query.query_id for query in bench.queries()}
    for data in golden + real:
        assert data["query_id"] in folder and data["doc_id"].startswith("d")
        assert re.fullmatch(r"relevance:[0-9a-f]{12}", data["item_key"])
        assert data["context"].startswith(f"intent {data['strata']['intent']}: a user ")
        assert "how to grade: " in data["context"]
        assert set(data["strata"]) == {"intent"}
    # a gold task's passage is the corpus passage as a real task shows it (title first)
    for data in golden:
        assert data["passage"].startswith("Doc ")
    claims = [data for data in golden + real if data["strata"]["intent"] == "FC"]
    assert claims and all("supports or refutes the claim" in d["context"] for d in claims)


def test_a_bad_gold_share_is_a_clear_error(tmp_path: Path, capsys) -> None:
    bench = relevance_bench(tmp_path / "bench", queries=6)
    with pytest.raises(SystemExit) as stopped:
        main(["annotate", "export-tasks", str(bench.root), "--out", str(tmp_path / "r.json"),
              "--gold-share", "0.9"])
    said = capsys.readouterr()
    assert stopped.value.code != 0 and "Traceback" not in said.out + said.err
    assert "--gold-share must be between 0 and 0.5, got 0.9" in " ".join(
        (said.out + said.err).split())
