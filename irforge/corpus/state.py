"""Where each corpus stage keeps its files, and the append-only logs that make stages resumable.

Every stage writes one row per finished item to a JSONL log, flushed at once. A killed run
leaves at most one torn last line, which :class:`StageLog` cuts off when it reopens the log;
the next run skips every item the log already holds.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.jsonl import dumps, write_json

WORK_FOLDER = "corpus_work"
STAGES = ("collect", "extract", "dedup", "chunk", "dedup_passages", "write")


class StaleStageError(IrforgeError):
    """A stage's saved state was made with other settings than the ones given now."""


@dataclass(frozen=True)
class CorpusWork:
    """The working folder of the corpus pipeline inside a benchmark folder."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    def stage_dir(self, stage: str) -> Path:
        if stage not in STAGES:
            raise ValueError(f"unknown corpus stage {stage!r}; known: {', '.join(STAGES)}")
        return self.root / stage

    @property
    def files_dir(self) -> Path:
        """Downloaded PDFs, named by the first 16 hex digits of their SHA-256."""
        return self.stage_dir("collect") / "files"

    def log(self, stage: str, name: str) -> StageLog:
        return StageLog(self.stage_dir(stage) / name)

    def start(self, stage: str, params: Mapping[str, Any], fresh: bool = False) -> None:
        """Open a stage: check its saved settings match ``params``, or start it over.

        ``fresh`` clears this stage and every later one, whose inputs it is about to change.
        """
        folder = self.stage_dir(stage)
        if fresh:
            for later in STAGES[STAGES.index(stage):]:
                shutil.rmtree(self.stage_dir(later), ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        state_path = folder / "params.json"
        wanted = json.loads(json.dumps(dict(params), sort_keys=True, default=str))
        if state_path.exists():
            saved = json.loads(state_path.read_text(encoding="utf-8"))
            if saved != wanted:
                changed = sorted(key for key in set(saved) | set(wanted)
                                 if saved.get(key) != wanted.get(key))
                raise StaleStageError(
                    f"{state_path}: stage '{stage}' was started with other settings "
                    f"(changed: {', '.join(changed)}); re-run with --fresh to start this stage "
                    f"and the later ones over, or keep the old settings to resume")
            return
        write_json(state_path, wanted)

    @classmethod
    def of(cls, bench_dir: Path) -> CorpusWork:
        """The working folder of the benchmark folder ``bench_dir``."""
        return cls(Path(bench_dir) / WORK_FOLDER)

    @property
    def bench(self) -> Benchmark:
        return Benchmark(self.root.parent)

    def mark_done(self, stage: str, summary: Mapping[str, Any]) -> None:
        """Save the stage's summary and record it in the benchmark manifest."""
        write_json(self.stage_dir(stage) / "done.json", dict(summary))
        self.bench.record_step(f"corpus.{stage}", summary)

    def is_done(self, stage: str) -> bool:
        return (self.stage_dir(stage) / "done.json").exists()


class StageLog:
    """An append-only JSONL log of finished items; safe to reopen after a kill."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _repair(self) -> None:
        """Cut a torn last line left by a killed writer."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with self.path.open("rb+") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) == b"\n":
                return
            end = handle.tell()
            while end > 0:
                start = max(0, end - 65536)
                handle.seek(start)
                newline = handle.read(end - start).rfind(b"\n")
                if newline >= 0:
                    handle.truncate(start + newline + 1)
                    return
                end = start
            handle.truncate(0)

    def rows(self) -> Iterator[dict[str, Any]]:
        """Stream the rows written so far (after cutting a torn last line)."""
        self._repair()
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    yield json.loads(line)

    def keys(self, field: str) -> set[str]:
        return {str(row[field]) for row in self.rows() if field in row}

    def count(self) -> int:
        return sum(1 for _ in self.rows())

    def writer(self) -> LogWriter:
        self._repair()
        return LogWriter(self.path)


class LogWriter:
    """Appends rows to a stage log, flushing each one so a kill loses at most the row in flight;
    a full disk cuts the log back to its last whole row and names the log's filesystem."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._handle = path.open("a", encoding="utf-8")
        self._whole = self._handle.tell()

    def write(self, row: Mapping[str, Any]) -> None:
        self.write_all((row,))

    def write_all(self, rows: Iterable[Mapping[str, Any]]) -> None:
        text = "".join(dumps(dict(row)) + "\n" for row in rows)
        try:
            self._handle.write(text)
            self._handle.flush()
        except OSError as exc:
            self._cut(exc, len(text.encode()))
        self._whole += len(text.encode())

    def close(self) -> None:
        try:
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as exc:
            self._cut(exc, 0)
        finally:
            self._handle.close()

    def _cut(self, exc: OSError, attempted: int) -> None:
        """Cut the torn row a failed write left, then raise the clear disk-full error."""
        from contextlib import suppress

        from irforge.core.disk import disk_full

        with suppress(OSError):
            self._handle.close()
        with suppress(OSError):
            os.truncate(self.path, self._whole)
        full = disk_full(exc, self.path, attempted)
        if full is not None:
            raise full from exc
        raise exc

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
