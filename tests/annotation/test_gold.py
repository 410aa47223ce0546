"""Gold questions: the judge's control items go out with a round (indistinguishable tasks),
come back scored per annotator, never reach judgments or qrels, and `audit agreement` prints
each annotator's accuracy on them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from irforge.annotation.files import export_tasks, import_tasks
from irforge.annotation.gold import annotator_accuracy, gold_path
from irforge.annotation.labeling import choice_result, get_job
from irforge.cli.app import build_app
from irforge.core.beir import read_qrels
from irforge.core.jsonl import iter_jsonl, write_jsonl
from tests.annotation.helpers import relevance_bench

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
    files = export_tasks(bench, job, tmp_path / "round1.json", n=4, seed=1,
                         show_predictions=True)
    tasks = json.loads(files.tasks.read_text(encoding="utf-8"))
    assert len(tasks) == 6  # 4 sampled + 2 gold
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
