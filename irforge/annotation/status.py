"""Progress of an annotation project per stratum: tasks, annotated tasks, annotations."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
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


def progress(tasks: Iterable[Mapping[str, Any]]) -> list[StratumProgress]:
    """Totals for the whole project, then per value of every stratum key in the task data."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for task in tasks:
        done = _done(task)
        strata = (task.get("data") or {}).get("strata") or {}
        for key in [("all", "all"), *((str(k), str(v)) for k, v in sorted(strata.items()))]:
            row = counts[key]
            row[0] += 1
            row[1] += int(done > 0)
            row[2] += done
    ordered = sorted(counts, key=lambda key: (key != ("all", "all"), key))
    return [StratumProgress(key[0], key[1], *counts[key]) for key in ordered]


def project_progress(connection: LabelStudio, project_id: int) -> list[StratumProgress]:
    connection.project(project_id)
    return progress(iter_tasks(connection, project_id, fields="task_only"))
