"""Files an export owns in its output folder, so exporting again removes what it no longer
writes (a qrels split dropped with ``--split``, a run deleted from ``eval/runs``) and nothing
else: the list of written files is kept in ``.irforge-export.json``."""

from __future__ import annotations

import json
from pathlib import Path

from irforge.core.generation import remove
from irforge.core.jsonl import atomic_open

OWNED_FILE = ".irforge-export.json"


def owned_files(out: Path) -> list[Path]:
    """Files an earlier export recorded in ``out`` (inside ``out`` only; none if unreadable)."""
    record = Path(out) / OWNED_FILE
    try:
        names = json.loads(record.read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError):
        return []
    root = Path(out).resolve()
    paths = [(root / str(name)).resolve() for name in names if isinstance(name, str)]
    return [path for path in paths if path.is_relative_to(root) and path != root]


def remove_stale(out: Path, written: list[Path]) -> list[Path]:
    """Delete the files the earlier export owned that this one did not write; returns them."""
    keep = {Path(path).resolve() for path in written}
    removed = []
    for path in owned_files(out):
        if path not in keep and path.is_file():
            remove(path)  # journaled: a failed export puts it back
            removed.append(path)
            parent = path.parent
            while parent != Path(out).resolve() and parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
    return removed


def record_owned(out: Path, fmt: str, written: list[Path]) -> None:
    """Remember what this export wrote."""
    root = Path(out).resolve()
    names = sorted(str(Path(path).resolve().relative_to(root)) for path in written)
    with atomic_open(root / OWNED_FILE) as handle:
        json.dump({"format": fmt, "files": names}, handle, indent=1)
