"""Which benchmark folders one page shows: the folder itself, or every method folder of a run
folder (``irforge run`` writes ``bench/intents/``, ``bench/logical/``, ...), found by the one
discovery rule of :mod:`irforge.core.collection`."""

from __future__ import annotations

from pathlib import Path

from irforge.core.collection import benchmark_folders
from irforge.core.errors import IrforgeError


def is_bench(folder: Path) -> bool:
    """Whether ``folder`` has queries to show."""
    return (Path(folder) / "queries.jsonl").is_file()


def bench_folders(root: Path) -> list[tuple[str, Path]]:
    """``(label, folder)`` pairs of every benchmark at or below ``root`` (label = the path under
    the root, or the root's name), in path order; folders without queries included, so the page
    can name them."""
    root = Path(root)
    if not root.is_dir():
        raise IrforgeError(f"benchmark folder {root} does not exist: give a folder written by "
                           "irforge run or irforge build")
    found = benchmark_folders(root)
    folders = [(found.name(folder), folder) for folder in found.folders]
    if not any(is_bench(folder) for _, folder in folders):
        raise IrforgeError(f"{root} holds no queries.jsonl, nor do its sub-folders: build a "
                           "benchmark first (irforge run, irforge build ...)")
    return folders
