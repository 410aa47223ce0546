"""A method's files in a benchmark folder: one :class:`Layout` per method names every one.

Each method spells its files once, in ``irforge/generators/<method>/layout.py`` (which imports
only ``irforge.core``); builders write, and ``check`` and ``eval`` read, through those paths.
The BEIR files every method shares (corpus, queries, qrels, judgments, failures, manifest) are
:class:`irforge.core.bench.Benchmark`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from irforge.core.errors import IrforgeError

# the files every method's folder holds (Benchmark's paths), relative to the folder
BEIR_FILES = ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "judgments.jsonl",
              "failures.jsonl", "manifest.json")


@dataclass(frozen=True)
class Layout:
    """The method's own files, by role, relative to a benchmark folder."""

    method: str
    builder: str  # the command that writes the files, for error messages
    files: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", MappingProxyType(dict(self.files)))

    def relative(self, role: str) -> str:
        """The path of ``role`` relative to the folder, e.g. ``multicon/task1.jsonl``."""
        try:
            return self.files[role]
        except KeyError:
            raise IrforgeError(f"the {self.method} layout has no file {role!r}; it names "
                               f"{', '.join(self.files)}") from None

    def path(self, root: Path, role: str) -> Path:
        """The file of ``role`` in the benchmark folder ``root``."""
        return Path(root) / self.relative(role)

    def present(self, root: Path) -> list[str]:
        """Roles whose files exist in ``root``."""
        return [role for role in self.files if self.path(root, role).is_file()]

    def every_file(self) -> tuple[str, ...]:
        """Every file a folder of this method holds: the BEIR ones, then the method's own."""
        return (*BEIR_FILES, *self.files.values())
