"""rich progress bar for a run: done/total, rate, ETA and dollars spent."""

from __future__ import annotations

import sys
from typing import Any


class RunProgress:
    """A progress bar when enabled (default: only on a terminal), a no-op otherwise."""

    def __init__(self, enabled: bool | None, description: str, total: int) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._progress: Any = None
        self._task: Any = None
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
            TextColumn("{task.fields[note]}"), TextColumn("[yellow]{task.fields[wait]}"),
            console=Console(stderr=True), transient=False)
        self._task = self._progress.add_task(description, total=total, rate="-", cost=0.0,
                                             note="", wait="")

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def waiting(self, text: str) -> None:
        """Show what the run is waiting for (open requests, back-offs); empty clears it."""
        if self._progress is not None:
            self._progress.update(self._task, wait=text)

    def say(self, text: str) -> None:
        """One line on stderr, above the bar when there is one (long waits, caps)."""
        if self._progress is not None:
            self._progress.console.print(text, highlight=False, markup=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def advance(self, count: int, cost: float, note: str = "") -> None:
        if self._progress is None:
            return
        self._progress.update(self._task, advance=count, cost=cost, note=note)
        speed = self._progress.tasks[0].speed
        self._progress.update(self._task, rate=f"{speed:.1f}" if speed else "-")
