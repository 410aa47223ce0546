"""What a run is waiting for right now: open requests, retry back-offs, server-asked waits.

The engine tells a :class:`Waits` when a request starts and ends and when a retry sleeps;
the progress line shows :meth:`Waits.describe`, and a wait longer than ``loud_after``
seconds is also written out once (so a non-terminal run is never silent for minutes).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from irforge.core.verbosity import quiet
from irforge.llm.retry import retry_after_seconds, status_code


class Waits:
    """Open requests and back-off sleeps of one run, keyed by job."""

    told = False  # the long-wait notice was printed by this process (a demo has many runs)

    def __init__(self, loud_after: float, say: Callable[[str], None],
                 notes: list[str]) -> None:
        self.loud_after = loud_after
        self._say = say
        self._notes = notes
        self._open: dict[int, float] = {}
        self._sleeps: dict[int, tuple[float, str]] = {}
        self._announced = False

    @contextmanager
    def request(self, token: int) -> Iterator[None]:
        """Around one HTTP request (or one local generation)."""
        self._sleeps.pop(token, None)
        self._open[token] = time.monotonic()
        try:
            yield
        finally:
            self._open.pop(token, None)

    def sleeping(self, token: int, exc: BaseException | None, attempt: int, seconds: float,
                 cap: float) -> None:
        """Before a retry's back-off: record it, and say why when it is long or was capped."""
        code = status_code(exc) if exc is not None else None
        why = f"HTTP {code}" if code else type(exc).__name__ if exc else "retry"
        asked = retry_after_seconds(exc, cap=None) if exc is not None else None
        if asked is not None:
            why += f", Retry-After {asked:g} s"
            if asked > cap:
                note = (f"the server asked to wait {asked:g} s (Retry-After); waited {cap:g} s "
                        "instead (the cap, max_wait in irforge.toml)")
                if note not in self._notes:
                    self._notes.append(note)
                self._say(f"note: {note}")
        self._sleeps[token] = (time.monotonic() + seconds, why)
        if seconds >= self.loud_after:
            self._say(f"waiting {seconds:.0f} s before retry {attempt} ({why})")

    def describe(self) -> str:
        """A short line for the progress bar; empty when nothing is slow."""
        now = time.monotonic()
        parts = []
        if self._open:
            oldest = now - min(self._open.values())
            if oldest >= 2:
                parts.append(f"{len(self._open)} open, oldest {oldest:.0f}s")
        if self._sleeps:
            until, why = max(self._sleeps.values())
            parts.append(f"{len(self._sleeps)} in back-off ({why}; {max(until - now, 0):.0f}s)")
        return "; ".join(parts)

    def announce_long(self) -> None:
        """Say once per process, the first time a request has been open longer than
        ``loud_after`` (the progress line shows the rest); never under ``--quiet``."""
        if self._announced or Waits.told or quiet():
            return
        now = time.monotonic()
        slow = [start for start in self._open.values() if now - start >= self.loud_after]
        if slow:
            self._announced = Waits.told = True
            self._say(f"waiting for a request open {now - min(slow):.0f} s (no answer yet; "
                      f"{len(slow)} request(s) this slow; --timeout bounds each)")

    async def watch(self, show: Callable[[str], None], every: float = 0.5) -> None:
        """Until cancelled: show :meth:`describe` and announce long requests every ``every`` s."""
        while True:
            await asyncio.sleep(every)
            show(self.describe())
            self.announce_long()
