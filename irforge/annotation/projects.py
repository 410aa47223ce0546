"""Which Label Studio project holds which job of a benchmark: ``annotation/projects.json``.

The file stores the server URL, project id and title per job, never the token. Before a push
creates a project it keeps a random mark in ``.irforge/label_studio_marks.json`` (outside the
folder's generations, so a killed push keeps it) and writes it into the project's
description; a re-run whose registry lost the project finds it by that mark instead of making
a second one.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from irforge.annotation.connection import LabelStudio, explained
from irforge.annotation.errors import ProjectNotFound
from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import write_json

PAGE_SIZE = 500
MARKS = Path(".irforge") / "label_studio_marks.json"
MARK_PREFIX = "irforge-push:"


def registry_path(bench: Benchmark) -> Path:
    return bench.root / "annotation" / "projects.json"


def read_registry(bench: Benchmark) -> dict[str, Any]:
    path = registry_path(bench)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FormatError(Problem(path, f"malformed JSON: {exc.msg}", line=exc.lineno,
                                  hint="fix it or pass --project")) from exc
    if not isinstance(data, dict):
        raise FormatError(Problem(path, "expected an object {job: {project_id, url, title}}"))
    return data


def remember_project(bench: Benchmark, job: str, project_id: int, url: str, title: str) -> None:
    data = read_registry(bench)
    data[job] = {"project_id": int(project_id), "url": url, "title": title}
    write_json(registry_path(bench), data)


def push_mark(bench: Benchmark, job: str, url: str) -> tuple[str, bool]:
    """The mark of the project a push of ``job`` to ``url`` creates, and whether an earlier
    push kept it (it may have created the project, then died before recording it)."""
    path = bench.root / MARKS
    try:
        marks = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (json.JSONDecodeError, UnicodeDecodeError):
        marks = {}  # a cache: a damaged one only loses the mark
    marks = marks if isinstance(marks, dict) else {}
    key = f"{job} {url}"
    if isinstance(marks.get(key), str):
        return marks[key], True
    marks[key] = secrets.token_hex(8)
    write_json(path, marks)
    return marks[key], False


def marked_project(connection: LabelStudio, mark: str, title: str) -> Any | None:
    """The project titled ``title`` whose description carries ``mark``, if the server has one."""
    with explained(connection.settings, "listing projects"):
        for project in connection.client.projects.list():
            if project.title == title and f"{MARK_PREFIX}{mark}" in (project.description or ""):
                return project
    return None


def project_for(bench: Benchmark, job: str, explicit: int | None) -> int:
    """The project id given on the command line, else the one recorded at push time."""
    if explicit is not None:
        return explicit
    entry = read_registry(bench).get(job)
    if not entry:
        raise ProjectNotFound(f"no Label Studio project recorded for job {job!r} in "
                              f"{registry_path(bench)}; run `irforge annotate push` first or "
                              f"pass --project")
    return int(entry["project_id"])


def iter_tasks(connection: LabelStudio, project_id: int, fields: str = "all",
               page_size: int = PAGE_SIZE) -> Iterator[dict[str, Any]]:
    """Every task of a project as a dict, page by page (the SDK pager follows the pages)."""
    with explained(connection.settings, f"listing tasks of project {project_id}", project_id):
        for task in connection.client.tasks.list(project=project_id, fields=fields,
                                                 page_size=page_size):
            yield task.model_dump() if hasattr(task, "model_dump") else dict(task)
