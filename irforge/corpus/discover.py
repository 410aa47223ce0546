"""Which files of an input folder the extract stage reads, and why each other one is not read.

The folder is walked recursively in a fixed (sorted) order. Hidden files and folders (name
starting with '.'), the benchmark folder itself (when it lies inside the input), symlinked
folders (never followed: loops), special files and links to files outside the input folder
(``/etc/passwd``; read only with ``--follow-symlinks``) are skipped; so is every file that an
``--exclude`` glob matches or no ``--include`` glob matches, a licence file (LICENSE,
COPYING, NOTICE: unless an ``--include`` glob names it), and every file of a format no reader
handles. A folder written by Hugging Face ``save_to_disk`` is one input (a corpus).
Each skipped path comes with its reason, for the extract log and the console.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from irforge.corpus.formats import CORPUS_FORMATS, FORMATS, HF_DATASET, supported_suffixes
from irforge.corpus.formats.corpora import is_hf_dataset_folder

QUERY_FILES = {"queries.jsonl", "queries.parquet"}
# a folder's licence terms (LICENSE, LICENCE.md, COPYING.txt, NOTICE): read by `export` for the
# dataset card, never documents of the corpus unless an --include glob names them
LICENCE_STEMS = frozenset({"license", "licence", "copying", "notice"})


@dataclass(frozen=True)
class Found:
    """An input to read: its path relative to the input folder (posix) and its kind."""

    rel: str
    path: Path
    kind: str  # "document", "corpus" (a JSONL/Parquet corpus file) or "hf-dataset"


@dataclass
class Discovery:
    """The inputs to read and the ``(relative path, reason)`` of every path not read."""

    found: list[Found] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def matches(rel: str, patterns: Sequence[str]) -> str | None:
    """The first glob matching the relative path or the file name (``*`` spans folders)."""
    name = rel.rsplit("/", 1)[-1]
    return next((p for p in patterns if fnmatch.fnmatchcase(rel, p)
                 or fnmatch.fnmatchcase(name, p)), None)


def _kind(name: str) -> str | None:
    suffix = Path(name).suffix.lower()
    if suffix in FORMATS:
        return "document"
    return "corpus" if suffix in CORPUS_FORMATS else None


def discover(folder: Path, include: Sequence[str] = (), exclude: Sequence[str] = (),
             skip_dirs: Sequence[Path] = (), follow_symlinks: bool = False) -> Discovery:
    """Walk ``folder``; ``skip_dirs`` (the benchmark folder) are never entered; a link to a
    file outside ``folder`` is read only when ``follow_symlinks``."""
    root = Path(folder)
    inside = root.resolve()
    avoid = {Path(path).resolve() for path in skip_dirs}
    out = Discovery()
    if is_hf_dataset_folder(root):  # --input names a dataset folder itself
        out.found.append(Found(root.name, root, HF_DATASET))
        return out
    readable = ", ".join(supported_suffixes())
    for current, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(current)
        base = here.relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        for name in sorted(dirnames):
            rel, path = prefix + name, here / name
            reason = None
            if name.startswith("."):
                reason = "hidden: a folder whose name starts with '.' (not searched)"
            elif path.is_symlink():
                reason = "symlink: a linked folder (not followed)"
            elif path.resolve() in avoid:
                reason = "benchmark-folder: the output folder itself (not searched)"
            elif pattern := matches(rel, exclude):
                reason = f"excluded: matches --exclude {pattern!r}"
            elif is_hf_dataset_folder(path):
                out.found.append(Found(rel, path, HF_DATASET))
                reason = ""
            if reason is not None:
                dirnames.remove(name)
                if reason:
                    out.skipped.append((rel + "/", reason))
        dirnames.sort()
        for name in sorted(filenames):
            rel, path = prefix + name, here / name
            kind = _kind(name)
            if name.startswith("."):
                out.skipped.append((rel, "hidden: a file whose name starts with '.'"))
            elif not path.is_file():
                out.skipped.append((rel, "special: not a regular file (a broken link, pipe or "
                                        "device)"))
            elif (not follow_symlinks and path.is_symlink()
                  and not path.resolve().is_relative_to(inside)):
                out.skipped.append((rel, f"symlink: links to {path.resolve()}, outside the input "
                                        "folder (not read; --follow-symlinks reads it)"))
            elif pattern := matches(rel, exclude):
                out.skipped.append((rel, f"excluded: matches --exclude {pattern!r}"))
            elif include and not matches(rel, include):
                out.skipped.append((rel, "not-included: matches no --include glob"))
            elif Path(name).stem.lower() in LICENCE_STEMS and not include:
                out.skipped.append((rel, "licence: the folder's licence terms, not a document "
                                         f"(--include {name!r} reads it)"))
            elif name.lower() in QUERY_FILES:
                out.skipped.append((rel, "not-corpus: a BEIR queries file (only corpus rows "
                                         "are documents)"))
            elif kind is None:
                suffix = Path(name).suffix.lower() or "(none)"
                out.skipped.append((rel, f"unsupported: {suffix} files are not read "
                                        f"(readable: {readable})"))
            else:
                out.found.append(Found(rel, path, kind))
    return out
