"""Pull: export a project snapshot, validate every answer against the config, append the new
human labels to judgments.jsonl, adjudicate several annotators and write human qrels.

The raw export is saved under ``annotation/exports/`` before anything is parsed, and nothing is
appended until the whole export parsed, so a malformed export or a dropped connection loses
nothing local. Answers that do not fit the config become failures, not labels.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from irforge.annotation.connection import LabelStudio
from irforge.annotation.errors import ExportError
from irforge.annotation.gold import answers_path, score_answers, split_gold
from irforge.annotation.labeling import LabelingJob, choices_of, validate_result
from irforge.annotation.projects import iter_tasks
from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import atomic_open, write_json, write_jsonl
from irforge.core.records import Failure, Judgment, Qrel
from irforge.validators.adjudication import majority_label

SNAPSHOT_OPTIONS = {"predictions": {"only_id": False}}


@dataclass(frozen=True)
class PullResult:
    """What a pull did."""

    snapshot: Path
    tasks: int  # real tasks (gold ones are scored apart, never judgments)
    new_labels: int
    unchanged: int
    invalid: int
    adjudicated: int
    qrels_path: Path | None
    gold: int = 0  # gold tasks in the export

    def counts(self) -> str:
        """``12 tasks (10 real + 2 gold)``: the words push and status use too."""
        return f"{self.tasks + self.gold} tasks ({self.tasks} real + {self.gold} gold)"


def export_snapshot(connection: LabelStudio, project_id: int, folder: Path,
                    timeout: float = 600.0, poll: float = 0.5) -> Path:
    """Ask the server for a JSON snapshot (full predictions), wait for it, save it to disk."""
    exports = connection.client.projects.exports
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    created = connection.call(f"exporting project {project_id}", exports.create, project_id,
                              title=f"irforge pull {stamp}", project=project_id,
                              serialization_options=SNAPSHOT_OPTIONS)
    deadline = time.monotonic() + timeout
    status = getattr(created, "status", None)
    while status not in ("completed", "failed"):
        if time.monotonic() > deadline:
            raise ExportError(f"export {created.id} of project {project_id} not ready after "
                              f"{timeout:.0f} s; retry later or use --method tasks")
        time.sleep(poll)
        status = connection.call("waiting for the export", exports.get, project_id,
                                 created.id, project=project_id).status
    if status == "failed":
        raise ExportError(f"Label Studio failed to build export {created.id} of project "
                          f"{project_id}; see the server log, or use --method tasks")
    path = Path(folder) / f"project-{project_id}-{stamp}.json"
    with atomic_open(path, "wb") as handle:
        chunks = connection.call("downloading the export", exports.download, project_id,
                                 created.id, export_type="JSON", project=project_id)
        for chunk in chunks:
            handle.write(chunk)
    return path


def snapshot_from_pages(connection: LabelStudio, project_id: int, folder: Path,
                        page_size: int = 500) -> Path:
    """Fallback: page through the task list (annotations and predictions) into a snapshot."""
    tasks = list(iter_tasks(connection, project_id, fields="all", page_size=page_size))
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    path = Path(folder) / f"project-{project_id}-{stamp}-pages.json"
    with atomic_open(path) as handle:
        json.dump(tasks, handle, default=str)
    return path


def read_snapshot(path: Path) -> list[dict[str, Any]]:
    """Load an export and check its shape; errors name the file, the task and the field."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FormatError(Problem(Path(path), f"export is not valid JSON: {exc}",
                                  hint="pull again; the server may have cut the download")) from exc
    if not isinstance(data, list):
        raise FormatError(Problem(Path(path), f"export must be a list of tasks, got "
                                  f"{type(data).__name__}", hint="export in JSON format"))
    for index, task in enumerate(data):
        where = f"task #{index}"
        if not isinstance(task, dict):
            raise FormatError(Problem(Path(path), f"{where} is not an object"))
        for key, kind in (("id", int), ("data", dict), ("annotations", list)):
            if not isinstance(task.get(key), kind):
                raise FormatError(Problem(Path(path), f"{where}: missing or wrong type",
                                          field=key, hint="pull again or use --method tasks"))
        if "item_key" not in task["data"]:
            raise FormatError(Problem(Path(path), f"{where} (id {task['id']}): no item_key in "
                                      f"data; was it pushed by irforge?", field="data.item_key"))
    return data


def _annotator(annotation: Mapping[str, Any], users: Mapping[int, str]) -> str:
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        return str(who.get("email") or who.get("id"))
    return users.get(who, str(who)) if isinstance(who, int) else str(who)


def to_judgments(tasks: Sequence[Mapping[str, Any]], job: LabelingJob, project_id: int,
                 users: Mapping[int, str]) -> tuple[list[Judgment], list[Failure]]:
    """Human judgments from a validated snapshot; answers outside the config become failures."""
    judgments, failures = [], []
    for task in tasks:
        data = task["data"]
        for annotation in task["annotations"]:
            if annotation.get("was_cancelled"):
                continue
            meta = {"ls_project": project_id, "ls_task_id": task["id"],
                    "ls_annotation_id": annotation.get("id"),
                    "ls_updated_at": annotation.get("updated_at"),
                    "lead_time": annotation.get("lead_time"), "strata": data.get("strata", {})}
            problems = validate_result(annotation.get("result"), job.config)
            if not problems and not choices_of(annotation["result"]).get(job.label_control):
                problems = [f"no answer in the label control {job.label_control!r}"]
            if problems:
                failures.append(Failure("annotate.pull", str(data["item_key"]),
                                        "; ".join(problems),
                                        raw_output=json.dumps(annotation.get("result")),
                                        metadata=meta))
                continue
            picked = choices_of(annotation["result"])
            extras = {name: values for name, values in picked.items()
                      if name != job.label_control}
            judgments.append(Judgment(
                str(data["query_id"]), str(data["doc_id"]),
                job.label_of(picked[job.label_control][0]), "human",
                annotator=_annotator(annotation, users), task=job.task,
                raw_output=json.dumps(annotation["result"], ensure_ascii=False),
                metadata={**meta, "choices": extras} if extras else meta))
    return judgments, failures


def _seen(bench: Benchmark, task: str) -> set[tuple[Any, Any]]:
    return {(j.metadata.get("ls_annotation_id"), j.metadata.get("ls_updated_at"))
            for j in bench.judgments() if j.source == "human" and j.task == task}


@dataclass(frozen=True)
class Adjudicated:
    """One item's final human label and how it was reached."""

    query_id: str
    doc_id: str
    label: float
    annotators: list[str]
    labels: list[float]
    tie: bool


def adjudicate(judgments: Iterable[Judgment], task: str,
               tie_break: str = "median") -> list[Adjudicated]:
    """Latest label per annotator, then majority vote with ``tie_break`` on ties."""
    latest: dict[tuple[str, str], dict[str, float]] = {}
    for judgment in judgments:
        if judgment.source == "human" and judgment.task == task:
            who = judgment.annotator or "unknown"
            latest.setdefault((judgment.query_id, judgment.doc_id), {})[who] = judgment.label
    out = []
    for (query_id, doc_id), by_person in sorted(latest.items()):
        labels = [by_person[name] for name in sorted(by_person)]
        counts = sorted((labels.count(v) for v in set(labels)), reverse=True)
        out.append(Adjudicated(query_id, doc_id, majority_label(labels, tie_break),
                               sorted(by_person), labels, len(counts) > 1 and
                               counts[0] == counts[1]))
    return out


def _score_gold(bench: Benchmark, job: LabelingJob, gold: Mapping[str, Mapping[str, Any]],
                gold_tasks: Sequence[Mapping[str, Any]], project_id: int,
                users: Mapping[int, str]) -> None:
    """Each annotator's answers on the gold tasks, scored (never judgments or qrels)."""
    labeled, _ = to_judgments(gold_tasks, job, project_id, users)
    top = max(job.label_values.values())
    keys = {t["id"]: str(t["data"]["item_key"]) for t in gold_tasks}
    answers = [(j.annotator or "unknown", keys[j.metadata["ls_task_id"]], float(j.label))
               for j in labeled]
    write_jsonl(answers_path(bench, job), score_answers(answers, gold, int(top)))


def _users(connection: LabelStudio) -> dict[int, str]:
    people = connection.call("listing users", connection.client.users.list)
    return {int(user.id): str(user.email or user.username or user.id) for user in people}


def pull(bench: Benchmark, job: LabelingJob, connection: LabelStudio, project_id: int,
         tie_break: str = "median", split: str = "human", method: str = "export",
         page_size: int = 500) -> PullResult:
    """Export, validate, append new human labels, adjudicate and write qrels/<split>.tsv."""
    folder = bench.root / "annotation" / "exports"
    connection.project(project_id)
    if method == "export":
        snapshot = export_snapshot(connection, project_id, folder)
    elif method == "tasks":
        snapshot = snapshot_from_pages(connection, project_id, folder, page_size)
    else:
        raise ValueError(f"unknown pull method {method!r}; use export or tasks")
    return ingest(bench, job, snapshot, project_id, _users(connection), tie_break, split,
                  step=f"annotate.pull.{job.name}", summary_folder=folder)


def ingest(bench: Benchmark, job: LabelingJob, snapshot: Path, project_id: int,
           users: Mapping[int, str], tie_break: str = "median", split: str = "human",
           step: str = "annotate.import", summary_folder: Path | None = None) -> PullResult:
    """Validate a saved snapshot, append new human labels, adjudicate, write qrels/<split>.tsv.

    Shared by ``annotate pull`` (server export) and ``annotate import-tasks`` (a file).
    """
    tasks, gold, gold_tasks = split_gold(bench, read_snapshot(snapshot))
    judgments, failures = to_judgments(tasks, job, project_id, users)
    if gold_tasks:
        _score_gold(bench, job, gold, gold_tasks, project_id, users)
    seen = _seen(bench, job.task)
    fresh = [j for j in judgments if (j.metadata.get("ls_annotation_id"),
                                      j.metadata.get("ls_updated_at")) not in seen]
    bench.add_judgments(fresh)
    if failures:
        bench.add_failures(failures)
    decided = adjudicate(bench.judgments(), job.task, tie_break)
    write_jsonl(bench.root / "annotation" / f"{job.name}_adjudicated.jsonl",
                ({"query_id": a.query_id, "doc_id": a.doc_id, "label": a.label,
                  "annotators": a.annotators, "labels": a.labels, "tie": a.tie,
                  "tie_break": tie_break} for a in decided))
    qrels_path = None
    if job.writes_qrels and decided:
        bench.write_qrels([Qrel(a.query_id, a.doc_id, round(a.label)) for a in decided],
                          split)
        qrels_path = bench.qrels_path(split)
    result = PullResult(snapshot, len(tasks), len(fresh), len(judgments) - len(fresh),
                        len(failures), len(decided), qrels_path, len(gold_tasks))
    if summary_folder is not None:
        write_json(summary_folder / "last_pull.json", {
            "snapshot": str(snapshot.name), "tasks": len(tasks), "gold": len(gold_tasks),
            "new_labels": len(fresh),
            "invalid": len(failures)})
    bench.record_step(step, {
        "project_id": project_id, "snapshot": str(snapshot), "tasks": len(tasks),
        "gold": len(gold_tasks),
        "new_labels": len(fresh), "invalid": len(failures), "adjudicated": len(decided),
        "tie_break": tie_break, "qrels": str(qrels_path) if qrels_path else None})
    return result
