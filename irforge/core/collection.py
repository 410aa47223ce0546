"""A benchmark collection: the folder ``irforge run`` writes, one benchmark folder per method.

:func:`benchmark_folders` is the one discovery rule every verb (check, eval, view, export,
annotate) uses: a folder is a benchmark when it holds one of :data:`MARKERS`; a folder that is
not one but has benchmark folders below it is a collection of them, in path order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from irforge.core.errors import IrforgeError

# files (or folders) whose presence makes a folder a benchmark: a method's build writes
# queries.jsonl, qrels/ and failures.jsonl (the last even when it kept nothing)
MARKERS = ("queries.jsonl", "qrels", "failures.jsonl")
# how deep below the root members are searched (``irforge demo`` writes out/multicon/<domain>)
DEPTH = 3

T = TypeVar("T")


def is_benchmark(folder: Path) -> bool:
    """True when ``folder`` holds a benchmark's own files (not only subfolders)."""
    return any((Path(folder) / name).exists() for name in MARKERS)


@dataclass(frozen=True)
class Collection:
    """A root folder and the benchmark folders a verb acts on (the root alone, or its members)."""

    root: Path
    folders: tuple[Path, ...]

    @property
    def is_collection(self) -> bool:
        """True when the root holds several method folders rather than being one benchmark."""
        return self.folders != (self.root,)

    def name(self, folder: Path) -> str:
        """How reports name a member: its path under the root (the root's own name if alone)."""
        if folder == self.root:
            return self.root.resolve().name or str(self.root)
        return folder.relative_to(self.root).as_posix()


def benchmark_folders(root: Path) -> Collection:
    """The benchmarks under ``root``: itself when it is one, else its benchmark subfolders.

    A root that is neither (an empty or unbuilt folder) is returned alone, so each verb reports
    what is missing in it; a root that does not exist is an error naming it.
    """
    root = Path(root)
    if not root.is_dir():
        raise IrforgeError(f"benchmark folder {root} not found (pass a folder `irforge build` "
                           "or `irforge run` wrote)")
    if is_benchmark(root):
        return Collection(root, (root,))
    members = tuple(sorted(_members(root, DEPTH), key=lambda path: path.as_posix()))
    return Collection(root, members or (root,))


def _members(folder: Path, depth: int) -> list[Path]:
    """Benchmark folders below ``folder`` (hidden folders skipped; a benchmark's own
    subfolders, such as ``eval/``, are not searched)."""
    found: list[Path] = []
    for child in folder.iterdir():
        if not child.is_dir() or child.name.startswith("."):
            continue
        if is_benchmark(child):
            found.append(child)
        elif depth > 1:
            found += _members(child, depth - 1)
    return found


@dataclass
class Outcomes(Generic[T]):
    """What a verb did to each benchmark of a collection: results and errors, by name."""

    done: list[tuple[str, T]] = field(default_factory=list)
    failed: list[tuple[str, IrforgeError]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when every folder succeeded, else the highest error's exit code."""
        return max((error.exit_code for _, error in self.failed), default=0)

    def raise_if_failed(self) -> None:
        """One error naming every folder that failed and why (the highest exit code)."""
        if not self.failed:
            return
        error = IrforgeError("; ".join(f"{name}: {exc}" for name, exc in self.failed))
        error.exit_code = self.exit_code
        raise error


def for_each(found: Collection, action: Callable[[str, Path], T]) -> Outcomes[T]:
    """Run ``action(name, folder)`` on every folder; a user error in one does not stop the
    others (a run with one failed method still reports the rest)."""
    outcomes: Outcomes[T] = Outcomes()
    for folder in found.folders:
        name = found.name(folder)
        try:
            outcomes.done.append((name, action(name, folder)))
        except IrforgeError as exc:
            if not found.is_collection:
                raise
            outcomes.failed.append((name, exc))
    return outcomes
