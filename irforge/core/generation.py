"""Atomic commits of a folder: every file one command writes lands together, or none does.

``with generation(root): ...`` opens one generation of ``root``. Before the first change to
a file under ``root`` (a rename into place by :func:`~irforge.core.jsonl.atomic_open`, an
append, a removal), the old file is kept in ``root/.irforge/journal/`` (a hard link, or its
size for an append) and a line naming it is synced to the journal. When the block ends the
journal is deleted: that one unlink is the commit. When the block fails (a crash, Ctrl-C, a
full disk) or the process is killed, the journal is replayed backwards, at once or by the
next command that opens a generation of the folder, so the folder holds the previous set of
files again; a build that keeps nothing (exit 3) or whose every call failed (exit 5) keeps only
its logs; a budget stop (exit 4) and other deliberate errors commit what was written. Caches
and resumable work folders (``.irforge/``, ``corpus_work/``) are not journaled: a re-run
continues there.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

JOURNAL = Path(".irforge") / "journal"
LOG = "open.jsonl"
#: folders whose files are caches or resumable work, not the folder's committed state
UNJOURNALED = frozenset({".irforge", "corpus_work"})
#: files a failed build still writes: why it kept nothing (docs/failures.md)
LOGS = frozenset({"failures.jsonl", "judgments.jsonl", "manifest.json"})

_ACTIVE: dict[Path, Generation] = {}
_GUARD = threading.RLock()


class Generation:
    """One open generation of ``root``: the journal of what its writes replaced."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.folder = self.root / JOURNAL
        self.seen: set[str] = set()
        self.log: IO[str] | None = None
        self.backups = 0

    def owns(self, path: Path) -> str | None:
        """``path`` relative to the root when this generation journals it, else None."""
        try:
            rel = Path(os.path.abspath(path)).relative_to(self.root)
        except ValueError:
            return None
        if not rel.parts or UNJOURNALED.intersection(rel.parts):
            return None
        return rel.as_posix()

    def before_replace(self, path: Path) -> None:
        """Keep ``path``'s current file before a new one is renamed over it (or it goes)."""
        rel = self.owns(path)
        if rel is None or rel in self.seen:
            return
        self.seen.add(rel)
        if not Path(path).is_file():
            self._note({"path": rel, "absent": True})
            return
        self._open()
        backup = self.folder / f"{self.backups}.bak"
        self.backups += 1
        try:
            os.link(path, backup)
        except OSError:
            shutil.copy2(path, backup)
        self._note({"path": rel, "backup": backup.name})

    def before_append(self, path: Path) -> None:
        """Remember ``path``'s size before rows are appended to it."""
        rel = self.owns(path)
        if rel is None or rel in self.seen:
            return
        self.seen.add(rel)
        size = os.path.getsize(path) if Path(path).is_file() else None
        self._note({"path": rel, "size": size} if size is not None else
                   {"path": rel, "absent": True})

    def temporary(self, path: Path) -> None:
        """A temporary file about to be made: removed if the generation does not commit."""
        rel = self.owns(path)
        if rel is not None:
            self._note({"temp": rel})

    def commit(self) -> None:
        """Keep every write: delete the journal (the commit point), then its backups."""
        if self.log is None:
            return
        self.log.close()
        self.log = None
        (self.folder / LOG).unlink()
        _sync_dir(self.folder)
        _drop(self.folder)

    def abort(self, keep: frozenset[str] = frozenset()) -> None:
        """Put back the previous files, except those named in ``keep`` (by file name)."""
        if self.log is not None:
            self.log.close()
            self.log = None
        rollback(self.root, keep)

    def _open(self) -> None:
        if self.log is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.log = (self.folder / LOG).open("a", encoding="utf-8")

    def _note(self, entry: dict[str, Any]) -> None:
        self._open()
        assert self.log is not None
        self.log.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.log.flush()
        os.fsync(self.log.fileno())


def active(path: Path) -> Generation | None:
    """The open generation whose folder holds ``path``, if any."""
    if not _ACTIVE:
        return None
    here = Path(os.path.abspath(path))
    with _GUARD:
        for root, gen in _ACTIVE.items():
            if here.is_relative_to(root):
                return gen
    return None


@contextmanager
def generation(root: Path) -> Iterator[Generation]:
    """Open a generation of ``root`` (joining one already open for it); see the module doc."""
    from irforge.core.errors import AllCallsFailed, DiskFullError, EmptyResultError, IrforgeError

    root = Path(root).resolve()
    with _GUARD:
        outer = active(root)
        if outer is None:
            rollback(root)
            gen = _ACTIVE[root] = Generation(root)
    if outer is not None:
        yield outer
        return
    try:
        yield gen
    except (EmptyResultError, AllCallsFailed):  # nothing new was made: only the logs say why
        gen.abort(keep=LOGS)
        raise
    except IrforgeError as exc:
        if isinstance(exc, DiskFullError):
            gen.abort()
        else:
            gen.commit()
        raise
    except BaseException:
        gen.abort()
        raise
    else:
        gen.commit()
    finally:
        with _GUARD:
            _ACTIVE.pop(root, None)


def remove(path: Path) -> None:
    """Delete ``path``, journaled (the previous file comes back if the generation fails)."""
    from irforge.core.faults import write_point

    gen = active(path)
    if gen is not None:
        gen.before_replace(path)
    write_point()
    Path(path).unlink(missing_ok=True)


def rollback(root: Path, keep: frozenset[str] = frozenset()) -> bool:
    """Replay an unfinished generation of ``root`` backwards; True when there was one."""
    folder = Path(root) / JOURNAL
    log = folder / LOG
    if not log.is_file():
        _drop(folder)  # a commit cut between its unlink and the cleanup
        return False
    entries = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        with suppress(ValueError):  # a torn last line: its write never happened
            entries.append(json.loads(line))
    for entry in reversed(entries):
        _undo(Path(root), folder, entry, keep)
    log.unlink()
    _drop(folder)
    return True


def _undo(root: Path, folder: Path, entry: dict[str, Any], keep: frozenset[str]) -> None:
    rel = entry.get("temp") or entry.get("path")
    if not isinstance(rel, str):
        return
    path = root / rel
    if "temp" in entry:
        path.unlink(missing_ok=True)
        _drop_empty_parents(path.parent, root)  # a folder made for it goes too
    elif path.name in keep:
        return
    elif "backup" in entry:
        backup = folder / str(entry["backup"])
        if backup.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(backup, path)
    elif entry.get("absent"):
        if path.is_file():
            path.unlink()
            _drop_empty_parents(path.parent, root)
    elif isinstance(entry.get("size"), int) and path.is_file():
        os.truncate(path, entry["size"])


def _drop_empty_parents(folder: Path, root: Path) -> None:
    while folder != root and folder.is_relative_to(root):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _drop(folder: Path) -> None:
    """Remove the journal folder, and ``.irforge`` above it when nothing else is there."""
    shutil.rmtree(folder, ignore_errors=True)
    with suppress(OSError):
        folder.parent.rmdir()


def _sync_dir(folder: Path) -> None:
    with suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
