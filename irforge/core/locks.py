"""One writer per benchmark folder: an advisory lock file that names the process holding it.

``with FolderLock(root): ...`` takes ``root/.irforge/writer.lock`` (``flock``), re-entrant
within one process; a second process gets :class:`~irforge.core.errors.InUseError` ("in use by
pid N") at once, or waits up to ``wait_s`` seconds (``IRFORGE_LOCK_WAIT``) for it first.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import IO, Any

from irforge.core.disk import ensure_folder
from irforge.core.errors import InUseError

WAIT_ENV = "IRFORGE_LOCK_WAIT"
LOCK_NAME = Path(".irforge") / "writer.lock"

_HELD: dict[Path, tuple[IO[str], int]] = {}  # lock file -> (open handle, nesting depth)
_GUARD = threading.RLock()


class FolderLock:
    """Context manager holding the writer lock of one benchmark folder."""

    def __init__(self, root: Path, wait_s: float | None = None) -> None:
        self.path = (Path(root) / LOCK_NAME).resolve()
        self.wait_s = float(wait_s if wait_s is not None else os.environ.get(WAIT_ENV) or 0)

    def __enter__(self) -> FolderLock:
        with _GUARD:
            if self.path in _HELD:
                handle, depth = _HELD[self.path]
                _HELD[self.path] = (handle, depth + 1)
                return self
            _HELD[self.path] = (self._acquire(), 1)
        return self

    def __exit__(self, *exc: object) -> None:
        with _GUARD:
            handle, depth = _HELD[self.path]
            if depth > 1:
                _HELD[self.path] = (handle, depth - 1)
                return
            del _HELD[self.path]
            _unlock(handle)
            handle.close()

    def _acquire(self) -> IO[str]:
        ensure_folder(self.path.parent.parent)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        deadline = time.monotonic() + self.wait_s
        while not _try_lock(handle):
            if time.monotonic() >= deadline:
                holder = _holder(self.path)
                handle.close()
                folder = self.path.parent.parent
                raise InUseError(
                    f"benchmark folder {folder} is in use by pid {holder} (another irforge run "
                    f"is writing it); wait for it to finish, or set {WAIT_ENV}=SECONDS to wait "
                    "for it, then re-run")
            time.sleep(0.2)
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        return handle


def _holder(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip() or "unknown"
    except OSError:
        return "unknown"


def _try_lock(handle: IO[Any]) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; single-writer is up to the user
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(handle: IO[Any]) -> None:
    try:
        import fcntl
    except ImportError:
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
