"""Which benchmark folders one page shows: the folder itself, or every method folder of a run
folder (``irforge run`` writes ``bench/intents/``, ``bench/logical/``, ...)."""

from __future__ import annotations

from pathlib import Path

from irforge.core.errors import IrforgeError

SKIPPED = {"view", "eval", "audits", "annotation", "qrels", "corpus_sources"}


def is_bench(folder: Path) -> bool:
    return (Path(folder) / "queries.jsonl").is_file()


def bench_folders(root: Path) -> list[tuple[str, Path]]:
    """``(label, folder)`` pairs: the root when it holds queries, then each sub-folder that
    does (label = its name), in name order."""
    root = Path(root)
    if not root.is_dir():
        raise IrforgeError(f"benchmark folder {root} does not exist: give a folder written by "
                           "irforge run or irforge build")
    found = [(root.resolve().name, root)] if is_bench(root) else []
    found += [(sub.name, sub) for sub in sorted(root.iterdir())
              if sub.is_dir() and not sub.name.startswith(".") and sub.name not in SKIPPED
              and is_bench(sub)]
    if not found:
        raise IrforgeError(f"{root} holds no queries.jsonl, nor do its sub-folders: build a "
                           "benchmark first (irforge run, irforge build ...)")
    return found
