"""rich progress bar for a run: done/total, rate, ETA and dollars spent.

Updates are throttled: finished items are counted at once but handed to rich at most every
``REFRESH_SECONDS`` (and when the run ends), so the bar costs nothing per request at high
throughput.
"""

from __future__ import annotations

import sys
import time
from typing import Any

REFRESH_SECONDS = 0.1


class RunProgress:
    """A progress bar when enabled (default: only on a terminal), a no-op otherwise."""

    def __init__(self, enabled: bool | None, description: str, total: int) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._progress: Any = None
        self._task: Any = None
        self._unshown = 0
        self._cost = 0.0
        self._note = ""
        self._shown_at = 0.0
        if not self.enabled or total == 0:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}/s"), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), TextColumn("${task.fields[cost]:.4f}"),
            TextColumn("{task.fields[note]}"), console=Console(stderr=True),
            transient=False)
        self._task = self._progress.add_task(description, total=total, rate="-", cost=0.0,
                                             note="")

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._show()
            self._progress.stop()

    def advance(self, count: int, cost: float, note: str = "") -> None:
        if self._progress is None:
            return
        self._unshown += count
        self._cost, self._note = cost, note
        if time.monotonic() - self._shown_at >= REFRESH_SECONDS:
            self._show()

    def _show(self) -> None:
        self._progress.update(self._task, advance=self._unshown, cost=self._cost,
                              note=self._note)
        self._unshown = 0
        self._shown_at = time.monotonic()
        speed = self._progress.tasks[0].speed
        self._progress.update(self._task, rate=f"{speed:.1f}" if speed else "-")
