"""Whether a folder's LLM labels can be trusted: the record of its judges' control items.

Every LLM judging step mixes in control items (``irforge.generators.controls``) and writes its
figures to ``judge_controls.json`` in the benchmark folder, one entry per judge::

    {"judges": {"relevance": {"status": "untrusted", "trusted": false, "reasons": [...],
                              "lines": [...],
                              "qrels_splits": ["test"], "model": "...", "demo_grade": true,
                              "deciding_step": "relevance.ensemble", "steps": {...}}}}

``irforge eval`` reads it (:func:`untrusted_judges`) and refuses untrusted qrels unless
``--allow-untrusted-qrels`` is given; the report's first lines come from :func:`trust_lines`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import write_json

CONTROLS_FILE = "judge_controls.json"
ALLOW_FLAG = "--allow-untrusted-qrels"


def controls_path(root: Path) -> Path:
    return Path(root) / CONTROLS_FILE


def read_judges(root: Path) -> dict[str, dict[str, Any]]:
    """Every judge entry of the folder's ``judge_controls.json`` (empty when there is none)."""
    path = controls_path(root)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FormatError(Problem(path, f"not valid JSON: {exc}",
                                  hint="re-run the labeling step that writes it")) from exc
    judges = data.get("judges") if isinstance(data, Mapping) else None
    if not isinstance(judges, Mapping) or not all(
            isinstance(entry, Mapping) and isinstance(entry.get("trusted"), bool)
            for entry in judges.values()):
        raise FormatError(Problem(path, "expected {\"judges\": {NAME: {\"trusted\": true|false, "
                                  "...}}}", field="judges",
                                  hint="re-run the labeling step that writes it"))
    return {str(name): dict(entry) for name, entry in judges.items()}


def record_judge(root: Path, name: str, entry: Mapping[str, Any]) -> Path:
    """Write (replace) one judge's entry, keeping the other judges' entries."""
    judges = read_judges(root)
    judges[name] = dict(entry)
    path = controls_path(root)
    write_json(path, {"judges": judges})
    return path


def status_of(entry: Mapping[str, Any]) -> str:
    """``trusted``, ``untrusted`` or ``untested`` (too few controls to decide)."""
    status = entry.get("status")
    if status in ("trusted", "untrusted", "untested"):
        return str(status)
    return "trusted" if entry["trusted"] else "untrusted"


def untrusted_judges(root: Path, split: str) -> dict[str, dict[str, Any]]:
    """The judges whose labels went into qrels split ``split`` and failed their controls."""
    return {name: entry for name, entry in read_judges(root).items()
            if status_of(entry) == "untrusted" and split in entry.get("qrels_splits", [])}


def trust_lines(root: Path, split: str) -> list[str]:
    """One line per judge behind split ``split``: trusted or not, with its figures."""
    lines = []
    for name, entry in read_judges(root).items():
        if split not in entry.get("qrels_splits", []):
            continue
        grade = " (DEMO GRADE model)" if entry.get("demo_grade") else ""
        state = {"trusted": "trusted on its controls",
                 "untrusted": "UNTRUSTED: failed its controls",
                 "untested": "NOT VERIFIED: too few controls to decide"}[status_of(entry)]
        lines.append(f"judge {name} ({entry.get('model') or 'unknown model'}{grade}): {state}")
        lines += [f"  {line}" for line in entry.get("lines", [])]
    return lines
