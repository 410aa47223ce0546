"""Verbs that write a benchmark folder take its writer lock once, before they write anything.

:data:`WRITERS` names, per verb, the parameter that holds the folder and whether the verb may
create it. :func:`holding_lock` wraps the verb so the lock (``irforge/core/locks.py``) is held
for its whole run: a second process writing the same folder is refused at once (exit 6, naming
the pid). Verbs called inside a locked run (``irforge run``) re-enter the lock. Under the lock
every verb's writes are one generation (``irforge/core/generation.py``): a failed or killed verb
leaves the folder's previous files; ``irforge run`` commits one generation per stage instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple


class Writes(NamedTuple):
    """Which argument is the folder a verb writes, and whether the verb creates it."""

    param: str
    creates: bool = True
    atomic: bool = True  # the whole verb is one generation (False: it opens its own)


# (group or None, verb) -> the folder it writes; reading verbs and those writing elsewhere
# (export --out, which opens its own generation of OUT) are not here
WRITERS: dict[tuple[str | None, str], Writes] = {
    (None, "run"): Writes("bench_dir", atomic=False),
    (None, "label"): Writes("bench_dir"),
    (None, "eval"): Writes("bench_dir", creates=False),
    ("corpus", "build"): Writes("out"),
    ("corpus", "collect"): Writes("out"),
    ("corpus", "extract"): Writes("out"),
    ("corpus", "dedup"): Writes("out"),
    ("corpus", "chunk"): Writes("out"),
    ("corpus", "dedup-passages"): Writes("out"),
    ("corpus", "write"): Writes("out"),
    ("corpus", "pool"): Writes("bench", creates=False),
    ("build", "intents"): Writes("bench_dir"),
    ("build", "logical"): Writes("bench_dir"),
    ("build", "multicon"): Writes("bench_dir"),
    ("build", "instructions"): Writes("bench_dir"),
    ("build", "instructions-review"): Writes("bench_dir", creates=False),
    # push marks the project it creates outside the generation (irforge/annotation/projects.py):
    # a re-run after a kill finds it there, and its tasks, instead of making a second one
    ("annotate", "push"): Writes("bench_dir", creates=False),
    ("annotate", "pull"): Writes("bench_dir", creates=False),
    ("annotate", "export-tasks"): Writes("bench_dir", creates=False),
    ("annotate", "import-tasks"): Writes("bench_dir", creates=False),
    ("qrels", "merge"): Writes("bench_dir", creates=False),
    # the demo writes only its own folder, every stage in one generation: a killed demo
    # leaves the previous folder, and its re-run (the LLM cache kept) starts over
    (None, "demo"): Writes("out"),
    # audits write their reports into BENCH_DIR/audits (or --out)
    ("audit", "agreement"): Writes("bench_dir", creates=False),
    ("audit", "duplicates"): Writes("bench_dir", creates=False),
    ("audit", "overlap"): Writes("bench_dir", creates=False),
}


def holding_lock(function: Callable[..., Any], writes: Writes) -> Callable[..., Any]:
    """``function`` run under the writer lock of the folder in its ``writes.param`` argument
    (not for ``--dry-run``, which writes nothing; not for a missing folder the verb only
    reads, which it reports itself)."""

    @functools.wraps(function)
    def locked(*args: Any, **kwargs: Any) -> Any:
        from contextlib import nullcontext

        from irforge.core.generation import generation
        from irforge.core.locks import FolderLock

        folder = kwargs.get(writes.param)
        if folder is None or kwargs.get("dry_run"):
            return function(*args, **kwargs)
        folder = Path(folder)
        if not writes.creates and not folder.is_dir():
            return function(*args, **kwargs)
        existed = folder.exists()
        try:
            with FolderLock(folder), (generation(folder) if writes.atomic
                                      else nullcontext()):
                return function(*args, **kwargs)
        finally:
            if not existed:
                _drop_if_only_lock(folder)

    return locked


def _drop_if_only_lock(folder: Path) -> None:
    """Remove a folder the lock created when the verb wrote nothing into it (a usage error
    leaves no empty folder behind); anything else in it stays."""
    from irforge.core.locks import LOCK_NAME

    lock = folder / LOCK_NAME
    try:
        if sorted(folder.rglob("*")) != [lock.parent, lock]:
            return
        lock.unlink()
        lock.parent.rmdir()
        folder.rmdir()
    except OSError:
        pass
