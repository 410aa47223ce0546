"""rich progress bar for a run: done/total, rate, ETA and dollars spent, fitted to 80 columns.

The numbers are one text column computed here (rich's own columns are dropped or squeezed
to ``-`` on narrow terminals), so ``12/340 3.1/s ETA 0:01:46 $0.0123`` always shows. Updates
are throttled: finished items are counted at once but handed to rich at most every
``REFRESH_SECONDS`` (and when the run ends), so the bar costs nothing per request at high
throughput. What the run waits for (open requests, back-offs) shows after the numbers.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from irforge.core.verbosity import quiet

DESCRIPTION_WIDTH = 24
BAR_WIDTH = 10
REFRESH_SECONDS = 0.1


def _clock(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def stats_text(done: int, total: int, rate: float | None, cost: float, note: str = "") -> str:
    """``done/total rate/s ETA h:mm:ss $cost [note]``; rate and ETA are ``?`` until measured."""
    speed = f"{rate:.1f}/s" if rate else "?/s"
    eta = _clock((total - done) / rate) if rate else ("0:00:00" if done >= total else "?")
    return f"{done}/{total} {speed} ETA {eta} ${cost:.4f}" + (f" {note}" if note else "")


class RunProgress:
    """A progress bar when enabled (default: on a terminal and not ``--quiet``), else a no-op."""

    def __init__(self, enabled: bool | None, description: str, total: int,
                 console: Any = None) -> None:
        self.enabled = (sys.stderr.isatty() and not quiet()) if enabled is None else enabled
        self.total, self.done, self.cost = total, 0, 0.0
        self.note, self.wait = "", ""
        self._baseline: int | None = None  # items already done (cache) at the first update
        self._started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None
        self._unshown = 0
        self._shown_at = 0.0
        if not self.enabled or total == 0:
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn
        from rich.table import Column

        self._progress = Progress(
            TextColumn("[bold]{task.description}", table_column=Column(
                width=DESCRIPTION_WIDTH, no_wrap=True, overflow="ellipsis")),
            BarColumn(bar_width=BAR_WIDTH),
            TextColumn("{task.fields[stats]}", table_column=Column(no_wrap=True)),
            console=console or Console(stderr=True), transient=False)
        short = (description if len(description) <= DESCRIPTION_WIDTH
                 else description[:DESCRIPTION_WIDTH - 1] + "…")
        self._task = self._progress.add_task(short, total=total,
                                             stats=stats_text(0, total, None, 0.0))

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._show()
            self._progress.stop()

    def rate(self) -> float | None:
        """Items per second since the first update, not counting items found done then."""
        if self._baseline is None:
            return None
        elapsed = time.monotonic() - self._started
        fresh = self.done - self._baseline
        return fresh / elapsed if fresh > 0 and elapsed > 0 else None

    def _show(self) -> None:
        if self._progress is None:
            return
        note = " ".join(part for part in (self.note, self.wait) if part)
        self._progress.update(self._task, advance=self._unshown,
                              stats=stats_text(self.done, self.total, self.rate(), self.cost,
                                               note))
        self._unshown = 0
        self._shown_at = time.monotonic()

    def advance(self, count: int, cost: float, note: str = "") -> None:
        self.done += count
        self.cost, self.note = cost, note
        if self._baseline is None:
            self._baseline, self._started = self.done, time.monotonic()
        self._unshown += count
        if time.monotonic() - self._shown_at >= REFRESH_SECONDS:
            self._show()

    def waiting(self, text: str) -> None:
        """Show what the run is waiting for (open requests, back-offs); empty clears it."""
        self.wait = text
        self._show()

    def say(self, text: str) -> None:
        """One line on stderr, above the bar when there is one (long waits, caps)."""
        if self._progress is not None:
            self._progress.console.print(text, highlight=False, markup=False)
        else:
            print(text, file=sys.stderr, flush=True)
