"""Which benchmark folders one page shows: the folder itself, or every method folder of a run
folder (``irforge run`` writes ``bench/intents/``, ``bench/logical/``, ...)."""

from __future__ import annotations

from pathlib import Path

from irforge.core.errors import IrforgeError

SKIPPED = {"view", "eval", "audits", "annotation", "qrels", "corpus_sources", "corpus_work"}
MAX_DEPTH = 3  # run folder / method / domain


def is_bench(folder: Path) -> bool:
    return (Path(folder) / "queries.jsonl").is_file()


def _nested(root: Path, folder: Path, depth: int):
    """Benchmark folders under ``folder`` (not inside another benchmark), in name order."""
    if depth == 0:
        return
    for sub in sorted(folder.iterdir()):
        if not sub.is_dir() or sub.name.startswith(".") or sub.name in SKIPPED:
            continue
        if is_bench(sub):
            yield str(sub.relative_to(root)), sub
        else:
            yield from _nested(root, sub, depth - 1)


def bench_folders(root: Path) -> list[tuple[str, Path]]:
    """``(label, folder)`` pairs: the root when it holds queries, then every benchmark folder
    below it (``intents/``, or ``multicon/books/`` as the demo writes; label = the relative
    path), in name order."""
    root = Path(root)
    if not root.is_dir():
        raise IrforgeError(f"benchmark folder {root} does not exist: give a folder written by "
                           "irforge run or irforge build")
    found = [(root.resolve().name, root)] if is_bench(root) else []
    found += list(_nested(root, root, MAX_DEPTH))
    if not found:
        raise IrforgeError(f"{root} holds no queries.jsonl, nor do its sub-folders: build a "
                           "benchmark first (irforge run, irforge build ...)")
    return found
