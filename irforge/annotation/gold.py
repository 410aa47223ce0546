"""Gold questions in annotation rounds: the judge's control items, shown to people too.

``annotate push`` and ``annotate export-tasks`` add the control items of the job's task
(``relevance/controls.jsonl``, written by ``irforge label``) to the sampled tasks, shuffled in,
with the judge's labels as predictions like every other task, so annotators cannot tell them
apart. Which keys are gold, and their expected answers, stay in the folder
(``annotation/gold.jsonl``), never in the task data. ``pull``/``import-tasks`` take gold tasks
out before adjudication (they never reach judgments or qrels) and score each annotator's answers
into ``annotation/<job>_gold_answers.jsonl``; ``irforge audit agreement`` prints each
annotator's accuracy on them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from irforge.annotation.items import MISSING, AnnotationItem, item_key
from irforge.annotation.labeling import LabelingJob
from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl, write_jsonl
from irforge.generators.relevance.layout import LAYOUT as RELEVANCE
from irforge.validators.control_stats import wilson_interval
from irforge.validators.controls import relevant_from

# job task -> the control log of the judge that labels it
CONTROL_LOGS = {"relevance": RELEVANCE.relative("controls")}
PROMPTS = {"zero_shot": "relevance.zero_shot", "cot": "relevance.cot_final",
           "multi_dim": "relevance.multi_dim_final"}


def gold_path(bench: Benchmark) -> Path:
    return bench.root / "annotation" / "gold.jsonl"


def answers_path(bench: Benchmark, job: LabelingJob) -> Path:
    return bench.root / "annotation" / f"{job.name}_gold_answers.jsonl"


def gold_items(bench: Benchmark, job: LabelingJob) -> list[tuple[AnnotationItem, int]]:
    """The job's control items as annotation items, with the expected answer (1 relevant)."""
    log = CONTROL_LOGS.get(job.task)
    path = bench.root / log if log else None
    if path is None or not path.is_file():
        return []
    model = str(bench.manifest().get("steps", {}).get("relevance", {}).get("engine", {})
                .get("model", "llm"))
    out = []
    for _, row in iter_jsonl(path):
        labels = {PROMPTS[name]: float(value) for name, value in row.get("labels", {}).items()
                  if name in PROMPTS and value is not None}
        if not labels:
            continue  # the judge gave no label: nothing to pre-fill, and so it would stand out
        key = item_key(job.task, str(row["control_id"]), str(row["doc_id"]))
        fields = {"query": row["query"], "passage": row["passage"],
                  "context": f"intent: {row['intent']}" if row.get("intent") else None}
        data: dict[str, Any] = {name: fields.get(name) or MISSING
                                for name in sorted(job.config.variables)}
        data.update({"item_key": key, "query_id": row["control_id"], "doc_id": row["doc_id"],
                     "irforge_task": job.task, "strata": {"intent": row.get("intent")}
                     if row.get("intent") else {}})
        item = AnnotationItem(key, str(row["control_id"]), str(row["doc_id"]), labels,
                              dict.fromkeys(labels, model), None, data["strata"], data)
        out.append((item, int(row["expected"])))
    return out


def with_gold(bench: Benchmark, job: LabelingJob, chosen: Sequence[AnnotationItem],
              seed: int = 0) -> list[AnnotationItem]:
    """The sampled items plus the gold items, shuffled together; records which keys are gold."""
    gold = gold_items(bench, job)
    if not gold:
        return list(chosen)
    known = {row["item_key"]: row for _, row in iter_jsonl(gold_path(bench))} \
        if gold_path(bench).is_file() else {}
    for item, expected in gold:
        known[item.key] = {"item_key": item.key, "task": job.task, "expected": expected,
                           "query_id": item.query_id, "doc_id": item.doc_id}
    write_jsonl(gold_path(bench), known.values())
    mixed = [*chosen, *(item for item, _ in gold)]
    random.Random(seed).shuffle(mixed)
    return mixed


def split_gold(bench: Benchmark, tasks: Sequence[Mapping[str, Any]]
               ) -> tuple[list[Mapping[str, Any]], dict[str, int], list[Mapping[str, Any]]]:
    """(real tasks, {gold key: expected}, gold tasks) of an export."""
    path = gold_path(bench)
    gold = {row["item_key"]: int(row["expected"]) for _, row in iter_jsonl(path)} \
        if path.is_file() else {}
    real = [task for task in tasks if task["data"].get("item_key") not in gold]
    found = [task for task in tasks if task["data"].get("item_key") in gold]
    return real, gold, found


def score_answers(answers: Sequence[tuple[str, str, float]], expected: Mapping[str, int],
                  top_label: int) -> list[dict[str, Any]]:
    """One row per (annotator, gold key, label): the expected answer and whether it was met."""
    cut = relevant_from(top_label)
    return [{"annotator": who, "item_key": key, "label": label, "expected": expected[key],
             "correct": int(label >= cut) == expected[key]} for who, key, label in answers]


def annotator_accuracy(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per annotator: gold answers, correct ones, accuracy and its 95% Wilson interval."""
    by_person: dict[str, list[bool]] = {}
    for row in rows:
        by_person.setdefault(str(row["annotator"]), []).append(bool(row["correct"]))
    out = []
    for person, marks in sorted(by_person.items()):
        low, high = wilson_interval(sum(marks), len(marks))
        out.append({"annotator": person, "gold": len(marks), "correct": sum(marks),
                    "accuracy": sum(marks) / len(marks), "low": low, "high": high})
    return out
