"""Disk-full and not-a-folder failures turned into one clear line instead of a traceback.

:func:`disk_full` maps ``ENOSPC``/``EDQUOT`` (and SQLite's "database or disk is full") to a
:class:`~irforge.core.errors.DiskFullError` naming the path, the free space left and how much
to free; :func:`ensure_folder` refuses a folder path that is an existing file.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from irforge.core.errors import DiskFullError, IrforgeError

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
SQLITE_FULL = "database or disk is full"
MIN_NEEDED = 1 << 20  # always ask for at least 1 MiB: the failing write is rarely the last


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk (or the user's quota) is full."""
    if isinstance(exc, OSError) and exc.errno in FULL_ERRNOS:
        return True
    return type(exc).__name__ == "OperationalError" and SQLITE_FULL in str(exc)


def free_bytes(path: Path) -> int | None:
    """Free bytes on the filesystem holding ``path`` (its nearest existing parent)."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free
    except OSError:
        return None


def human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def disk_full(exc: BaseException, path: Path | None, attempted: int = 0
              ) -> DiskFullError | None:
    """The clear error for a full disk while writing ``path`` (None for any other error).

    ``attempted`` is how many bytes the failed write had produced; the user is asked to free
    at least twice that (1 MiB or more), since later steps write more. Without a ``path``
    (an error that names no file) no free space is guessed from another filesystem.
    """
    if isinstance(exc, DiskFullError):
        return exc
    if not is_disk_full(exc):
        return None
    free = free_bytes(Path(path).parent) if path is not None else None
    needed = max(2 * attempted, MIN_NEEDED)
    left = f"{human(free)} free" if free is not None else "free space unknown"
    return DiskFullError(
        f"disk full while writing {path or 'the output folder'} ({left} on its filesystem); "
        f"free at least "
        f"{human(needed)} there (or point the output elsewhere) and re-run: nothing was "
        "half-written, finished steps are kept")


def ensure_folder(path: Path, what: str = "benchmark folder") -> Path:
    """``path`` as a folder, created if missing; a clear error when a file is in the way."""
    path = Path(path)
    for parent in (path, *path.parents):
        if parent.exists():
            if not parent.is_dir():
                raise IrforgeError(
                    f"{what} {path}: {parent} is a file, not a folder; give a folder path "
                    "(a new one is created) or move the file away")
            break
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        full = disk_full(exc, path)
        if full is not None:
            raise full from exc
        raise IrforgeError(f"cannot create the {what} {path}: {exc.strerror or exc}") from exc
    return path


def umask_mode(default: int = 0o666) -> int:
    """``default`` minus the process umask: the mode ``open()`` gives a new file."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return default & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no /proc: read it the only portable way, and put it back
    os.umask(mask)
    return default & ~mask
