"""Progress of an annotation project per stratum: tasks, annotated tasks, annotations; the
totals count every task, then real and gold apart (as push and pull do); the strata cover the
real tasks."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from irforge.annotation.connection import LabelStudio
from irforge.annotation.projects import iter_tasks


@dataclass(frozen=True)
class StratumProgress:
    """How far people got on one stratum value."""

    stratum: str
    value: str
    tasks: int
    annotated: int
    annotations: int

    @property
    def share(self) -> float:
        return self.annotated / self.tasks if self.tasks else 0.0


def _done(task: Mapping[str, Any]) -> int:
    if "total_annotations" in task:
        return int(task.get("total_annotations") or 0) - int(task.get("cancelled_annotations")
                                                             or 0)
    return sum(not a.get("was_cancelled") for a in task.get("annotations") or [])


def progress(tasks: Iterable[Mapping[str, Any]], gold: Collection[str] = ()
             ) -> list[StratumProgress]:
    """Totals for the whole project, for its real and its gold tasks (``gold``: their item
    keys), then per value of every stratum key of the real tasks."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    counts[("tasks", "real")], counts[("tasks", "gold")] = [0, 0, 0], [0, 0, 0]
    for task in tasks:
        done = _done(task)
        data = task.get("data") or {}
        is_gold = data.get("item_key") in gold
        strata = {} if is_gold else data.get("strata") or {}
        kind = ("tasks", "gold" if is_gold else "real")
        for key in [("all", "all"), kind, *((str(k), str(v)) for k, v in sorted(strata.items()))]:
            row = counts[key]
            row[0] += 1
            row[1] += int(done > 0)
            row[2] += done
    first = [("all", "all"), ("tasks", "real"), ("tasks", "gold")]
    ordered = first + sorted(key for key in counts if key not in first)
    return [StratumProgress(key[0], key[1], *counts[key]) for key in ordered]


def project_progress(connection: LabelStudio, project_id: int, gold: Collection[str] = ()
                     ) -> list[StratumProgress]:
    connection.project(project_id)
    return progress(iter_tasks(connection, project_id, fields="task_only"), gold)
