"""Fault injection for the crash tests: ``IRFORGE_KILL_AT_WRITE=N`` SIGKILLs the process at
its Nth write (a file renamed into place, a JSONL append, a file removed), as a power cut or
``kill -9`` would; ``IRFORGE_KILL_AT_WRITE=count`` prints how many writes a run made.

Every write that changes a folder's files calls :func:`write_point` just before it changes
anything, so the tests (tests/core/test_crash_harness.py) can stop a verb at each one.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
from collections.abc import Callable

KILL_ENV = "IRFORGE_KILL_AT_WRITE"
COUNT = "count"
_WRITES = [0]


def write_point(torn: Callable[[], None] | None = None) -> None:
    """Count one write; at the Nth, run ``torn`` (half of the write, e.g. half a row) and die."""
    limit = os.environ.get(KILL_ENV)
    if not limit:
        return
    _WRITES[0] += 1
    if limit == COUNT:
        if _WRITES[0] == 1:
            atexit.register(_print_count)
        return
    if limit.isdigit() and _WRITES[0] == int(limit):
        if torn is not None:
            torn()
        os.kill(os.getpid(), signal.SIGKILL)


def _print_count() -> None:
    sys.stderr.write(f"irforge-write-points: {_WRITES[0]}\n")
