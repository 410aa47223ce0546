"""Push: sample items, create or reuse a project, import tasks with the LLM labels as
predictions (one per prompt, plus the ensemble), in bulk, skipping keys already there."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from irforge.annotation.connection import LabelStudio
from irforge.annotation.errors import AnnotationError
from irforge.annotation.gold import DEFAULT_SHARE, with_gold
from irforge.annotation.guidelines import instructions_html
from irforge.annotation.items import AnnotationItem, bench_items
from irforge.annotation.labeling import LabelingJob, choice_result
from irforge.annotation.projects import (
    MARK_PREFIX,
    iter_tasks,
    marked_project,
    push_mark,
    read_registry,
    remember_project,
)
from irforge.annotation.sampling import select
from irforge.core.bench import Benchmark

ENSEMBLE_VERSION = "ensemble"
TITLE_LIMIT = 50


@dataclass(frozen=True)
class PushResult:
    """What a push did."""

    project_id: int
    created_project: bool
    candidates: int
    sampled: int  # real items sampled
    imported: int
    already_there: int
    gold: int = 0  # gold items mixed in (irforge/annotation/gold.py)

    @property
    def tasks(self) -> int:
        """Tasks of the round: the real items sampled plus the gold ones."""
        return self.sampled + self.gold


def predictions_for(item: AnnotationItem, job: LabelingJob) -> list[dict[str, Any]]:
    """One prediction per prompt (model_version = model/prompt) and one for the ensemble mean."""
    out = []
    for prompt, label in sorted(item.llm.items()):
        prediction: dict[str, Any] = {"model_version": f"{item.models.get(prompt, 'llm')}/{prompt}",
                                      "result": choice_result(job, job.choice_for(label))}
        if item.confidence is not None:
            prediction["score"] = item.confidence
        out.append(prediction)
    if len(item.llm) > 1:
        out.append({"model_version": ENSEMBLE_VERSION,
                    "result": choice_result(job, job.choice_for(item.ensemble))})
    return out


def task_for(item: AnnotationItem, job: LabelingJob, show_predictions: bool = False
             ) -> dict[str, Any]:
    """A task: its data, and the LLM labels as predictions only when asked (a review round):
    shown by default they would preselect an answer and anchor the annotator."""
    task: dict[str, Any] = {"data": dict(item.data)}
    if show_predictions:
        task["predictions"] = predictions_for(item, job)
    return task


def existing_keys(connection: LabelStudio, project_id: int) -> set[str]:
    """Item keys already imported into the project."""
    return {str(task["data"].get("item_key")) for task in
            iter_tasks(connection, project_id, fields="task_only")
            if isinstance(task.get("data"), dict)}


def default_title(bench: Benchmark, job: LabelingJob) -> str:
    """``<bench folder> <job>``, shortened to Label Studio's 50-character limit."""
    room = TITLE_LIMIT - len(job.name) - 1
    return f"{bench.root.resolve().name[:room]} {job.name}"[:TITLE_LIMIT]


def ensure_project(connection: LabelStudio, bench: Benchmark, job: LabelingJob,
                   project_id: int | None, title: str | None, annotators: int = 1
                   ) -> tuple[int, bool]:
    """Reuse the given or recorded project (checking it exists), or the one an interrupted
    push created (found by its mark), else create one."""
    recorded = read_registry(bench).get(job.name, {})
    wanted = project_id if project_id is not None else recorded.get("project_id")
    if wanted is not None:
        project = connection.project(int(wanted))
        remember_project(bench, job.name, project.id, connection.settings.base_url,
                         project.title or "")
        return int(project.id), False
    name = title or default_title(bench, job)
    if not 3 <= len(name) <= TITLE_LIMIT:
        raise AnnotationError(f"project title {name!r} must have 3 to {TITLE_LIMIT} characters "
                              f"(a Label Studio limit); pass a shorter --title")
    if annotators < 1:
        raise AnnotationError(f"--annotators must be at least 1, got {annotators}")
    url = connection.settings.base_url
    mark, earlier = push_mark(bench, job.name, url)
    found = marked_project(connection, mark, name) if earlier else None
    if found is not None:
        remember_project(bench, job.name, found.id, url, name)
        return int(found.id), False
    project = connection.call("creating a project", connection.client.projects.create,
                              title=name, label_config=job.config.xml,
                              description=f"irforge: {job.description} ({MARK_PREFIX}{mark})",
                              expert_instruction=instructions_html(job.name, job.description),
                              show_instruction=True, maximum_annotations=annotators,
                              overlap_cohort_percentage=100)
    remember_project(bench, job.name, project.id, url, name)
    return int(project.id), True


def import_in_batches(connection: LabelStudio, project_id: int,
                      tasks: Sequence[dict[str, Any]], batch_size: int = 500) -> int:
    """Bulk import; each batch is one request (the server takes up to 250k tasks per call)."""
    imported = 0
    for start in range(0, len(tasks), batch_size):
        batch = list(tasks[start:start + batch_size])
        response = connection.call(f"importing tasks into project {project_id}",
                                   connection.client.projects.import_tasks, project_id,
                                   request=batch, return_task_ids=True, project=project_id)
        imported += int(getattr(response, "task_count", None) or len(batch))
    return imported


def push(bench: Benchmark, job: LabelingJob, connection: LabelStudio, n: int,
         strategy: str = "random", seed: int = 0, by: str | None = None,
         threshold: float = 0.0, project_id: int | None = None, title: str | None = None,
         strata: Sequence[str] = ("intent", "type"), batch_size: int = 500,
         annotators: int = 1, show_predictions: bool = False, gold: bool = True,
         gold_share: float = DEFAULT_SHARE) -> PushResult:
    """Sample ``n`` items of the job and import those not yet in the project, with the job's
    gold items mixed in at ``gold_share`` of the round (unless ``gold`` is False); a new
    project asks ``annotators`` people per task and shows the job's guidelines."""
    items = bench_items(bench, job, strata)
    sampled = select(items, min(n, len(items)), strategy, seed, by, threshold)
    chosen = with_gold(bench, job, sampled, seed, items, show_predictions, gold_share) \
        if gold else sampled
    project, created = ensure_project(connection, bench, job, project_id, title, annotators)
    present = set() if created else existing_keys(connection, project)
    fresh = [item for item in chosen if item.key not in present]
    tasks = [task_for(item, job, show_predictions) for item in fresh]
    imported = import_in_batches(connection, project, tasks, batch_size) if fresh else 0
    bench.record_step(f"annotate.push.{job.name}", {
        "annotators": annotators, "predictions_shown": show_predictions,
        "project_id": project, "url": connection.settings.base_url, "strategy": strategy,
        "seed": seed, "stratify_by": by, "sample": len(sampled), "tasks": len(chosen),
        "gold": len(chosen) - len(sampled), "gold_share": gold_share, "candidates": len(items),
        # what this push did itself (a re-run after a kill finds the tasks already there)
        "newly_imported": imported, "newly_already_there": len(chosen) - len(fresh)})
    return PushResult(project, created, len(items), len(sampled), imported,
                      len(chosen) - len(fresh), len(chosen) - len(sampled))
