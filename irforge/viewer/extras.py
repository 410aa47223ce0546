"""What other stages left in a folder, read when present (never built here): validator
verdicts, judge control items, and Label Studio projects and tasks."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from irforge.core.layouts.relevance import LAYOUT as RELEVANCE
from irforge.core.records import Judgment

# where validators and judges leave per-query rows: validator verdicts, control items (the
# relevance judge's answers on controls made from a query sit in relevance/controls.jsonl)
VERDICT_FILES = ("validators/*.jsonl", "controls/*.jsonl", RELEVANCE.files["controls"])
VERDICT_KEYS = ("verdict", "passed", "pass", "ok", "correct", "expected", "label", "decision",
                "status")
DETAIL_KEYS = ("reason", "detail", "explanation", "kind", "control", "expected")


def json_rows(path: Path) -> Iterable[dict[str, Any]]:
    """The JSON objects of a JSONL file; lines that are not one are skipped (a view never
    fails on another stage's file)."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                yield row


def verdicts(folder: Path) -> dict[str, list[dict[str, str]]]:
    """Per query id: ``{"source", "verdict", "detail"}`` from the rows of
    :data:`VERDICT_FILES` that name a ``query_id``."""
    out: dict[str, list[dict[str, str]]] = defaultdict(list)
    for pattern in VERDICT_FILES:
        for path in sorted(Path(folder).glob(pattern)):
            for row in json_rows(path):
                query_id = row.get("query_id")
                if query_id is None:
                    continue
                verdict = next((row[k] for k in VERDICT_KEYS if k in row), "")
                if "expected" in row and "verdict" not in row:
                    answer = "relevant" if row["expected"] else "not relevant"
                    verdict = f"control, expected {answer}"
                detail = "; ".join(str(row[k]) for k in (*DETAIL_KEYS, "labels")
                                   if row.get(k) not in (None, "", {}) and k != "label")
                out[str(query_id)].append({"source": f"{path.parent.name}/{path.stem}",
                                           "verdict": str(verdict), "detail": detail[:300]})
    return dict(out)


def label_studio_projects(manifest: Mapping[str, Any]) -> dict[str, str]:
    """``{job: project URL}`` from the manifest's ``annotate.push.<job>`` entries."""
    out = {}
    for step, entry in (manifest.get("steps") or {}).items():
        if step.startswith("annotate.push.") and isinstance(entry, Mapping):
            url, project = entry.get("url"), entry.get("project_id")
            if url and project is not None:
                out[step.removeprefix("annotate.push.")] = (
                    f"{str(url).rstrip('/')}/projects/{project}/data")
    return out


def task_links(judgments: Iterable[Judgment], projects: Mapping[str, str]
               ) -> dict[str, list[str]]:
    """Per query id, the Label Studio task pages people labelled it on (from pulled
    judgments' ``ls_project`` / ``ls_task_id``)."""
    bases = {url.rsplit("/projects/", 1)[0] for url in projects.values()}
    base = next(iter(bases)) if len(bases) == 1 else None
    out: dict[str, set[str]] = defaultdict(set)
    for judgment in judgments:
        meta = judgment.metadata
        if judgment.source == "human" and base and meta.get("ls_task_id") is not None:
            out[judgment.query_id].add(f"{base}/projects/{meta.get('ls_project')}/data"
                                       f"?task={meta['ls_task_id']}")
    return {query: sorted(links) for query, links in out.items()}
