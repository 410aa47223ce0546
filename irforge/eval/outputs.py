"""Which files of an ``eval/`` folder an evaluation wrote, and what a re-run may replace.

``results.json`` lists the run files its evaluation wrote (``run_files``); a later evaluation
whose systems or qrels split differ refuses to overwrite it unless told to replace it (then it
removes exactly those files and says so), and ``irforge export`` ships only the listed runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from irforge.core.errors import IrforgeError
from irforge.core.generation import remove

RESULTS = "results.json"
RUNS = "runs"


def safe_name(name: str) -> str:
    """A file-name-safe version of a system name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "run"


def run_file_names(systems: Iterable[str]) -> list[str]:
    """``runs/<system>.trec`` for each system, relative to the eval folder."""
    return [f"{RUNS}/{safe_name(name)}.trec" for name in systems]


@dataclass(frozen=True)
class EarlierResults:
    """What an eval folder's ``results.json`` says an earlier evaluation wrote."""

    split: str | None
    systems: tuple[str, ...]
    run_files: tuple[str, ...]


def earlier_results(eval_dir: Path) -> EarlierResults | None:
    """The earlier evaluation in ``eval_dir``, or None when it holds no readable results."""
    path = Path(eval_dir) / RESULTS
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    systems = tuple(str(s.get("name")) for s in data.get("systems") or []
                    if isinstance(s, dict) and s.get("name"))
    listed = data.get("run_files")
    files = tuple(str(f) for f in listed) if isinstance(listed, list) else tuple(
        run_file_names(systems))
    split = data.get("split")
    return EarlierResults(str(split) if split is not None else None, systems, files)


def owned_runs(eval_dir: Path) -> tuple[list[Path], list[Path]]:
    """(run files ``results.json`` lists and that exist, other ``runs/*.trec`` files)."""
    eval_dir = Path(eval_dir)
    earlier = earlier_results(eval_dir)
    listed = {eval_dir / name for name in (earlier.run_files if earlier else ())}
    present = sorted((eval_dir / RUNS).glob("*.trec")) if (eval_dir / RUNS).is_dir() else []
    return ([p for p in present if p in listed], [p for p in present if p not in listed])


def claim(eval_dir: Path, split: str, systems: Iterable[str], replace: bool) -> list[Path]:
    """Check that a new evaluation may write ``eval_dir``; returns the earlier files it removed.

    Re-scoring the same systems on the same split just updates them. Anything else would drop
    an earlier evaluation's results: refused, unless ``replace`` (then its files are removed).
    """
    eval_dir = Path(eval_dir)
    earlier = earlier_results(eval_dir)
    if earlier is None:
        return []
    dropped = sorted(set(earlier.systems) - set(systems))
    if not dropped and earlier.split in (None, split):
        return []
    what = (f"systems {', '.join(dropped)}" if dropped else
            f"the {earlier.split!r} split")
    if not replace:
        raise OutputsInUseError(
            f"{eval_dir / RESULTS} holds an earlier evaluation ({what}) that this one would "
            f"overwrite; pass --replace to replace it, or --out to write elsewhere")
    removed = []
    for name in earlier.run_files:
        path = eval_dir / name
        if path.is_file():
            remove(path)  # journaled: a failed evaluation puts it back
            removed.append(path)
    return removed


class OutputsInUseError(IrforgeError):
    """An eval folder holds another evaluation's results that a new one would overwrite."""
