"""Label Studio tasks as files, for teams without a shared server.

``export_tasks`` samples items as ``annotate push`` does and writes ``tasks.json`` (Label
Studio's import format: ``data`` plus the LLM labels as ``predictions``) and the labeling
``config.xml`` next to it: create a project with that config in any Label Studio (a laptop
install works), import the file, annotate, then Export > JSON. ``import_tasks`` reads that
export file and goes through the same validation, adjudication and qrels as ``annotate pull``.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from irforge.annotation.gold import DEFAULT_SHARE, with_gold
from irforge.annotation.items import bench_items
from irforge.annotation.labeling import LabelingJob
from irforge.annotation.pull import PullResult, ingest
from irforge.annotation.push import task_for
from irforge.annotation.sampling import select
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError, IrforgeError
from irforge.core.jsonl import atomic_open

FILE_PROJECT = 0  # project id recorded for labels that came from a file


@dataclass(frozen=True)
class TaskFiles:
    """What ``export_tasks`` wrote."""

    tasks: Path
    config: Path
    candidates: int
    sampled: int  # real items sampled
    gold: int = 0  # gold items mixed in (irforge/annotation/gold.py)

    @property
    def count(self) -> int:
        """Tasks written: the real items sampled plus the gold ones."""
        return self.sampled + self.gold


def export_tasks(bench: Benchmark, job: LabelingJob, out: Path, n: int,
                 strategy: str = "random", seed: int = 0, by: str | None = None,
                 threshold: float = 0.0, show_predictions: bool = False, gold: bool = True,
                 gold_share: float = DEFAULT_SHARE) -> TaskFiles:
    """Write ``out`` (tasks JSON) and ``out``'s ``.xml`` config for a file-based round, with
    the job's gold items mixed in unless ``gold`` is False."""
    items = bench_items(bench, job, ("intent", "type"))
    if not items:
        raise EmptyResultError(f"{bench.judgments_path}: no '{job.task}' items to annotate "
                               f"(label the benchmark first, e.g. `irforge label`)")
    sampled = select(items, min(n, len(items)), strategy, seed, by, threshold)
    chosen = with_gold(bench, job, sampled, seed, items, show_predictions, gold_share) \
        if gold else sampled
    out = Path(out)
    with atomic_open(out) as handle:
        json.dump([task_for(item, job, show_predictions) for item in chosen], handle,
                  ensure_ascii=False, indent=1)
    config = out.with_suffix(".xml")
    with atomic_open(config) as handle:
        handle.write(job.config.xml)
    bench.record_step(f"annotate.export_tasks.{job.name}", {
        "file": str(out), "strategy": strategy, "seed": seed, "stratify_by": by,
        "sample": len(sampled), "tasks": len(chosen), "gold": len(chosen) - len(sampled),
        "gold_share": gold_share, "candidates": len(items)})
    return TaskFiles(out, config, len(items), len(sampled), len(chosen) - len(sampled))


def import_tasks(bench: Benchmark, job: LabelingJob, export_file: Path,
                 tie_break: str = "median", split: str = "human") -> PullResult:
    """Copy a Label Studio JSON export into ``annotation/exports/`` and ingest it."""
    export_file = Path(export_file)
    if not export_file.is_file():
        raise IrforgeError(f"{export_file} not found: in Label Studio use Export > JSON and "
                           f"pass the downloaded file")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    saved = bench.root / "annotation" / "exports" / f"file-{stamp}-{export_file.name}"
    with atomic_open(saved, "wb") as handle, export_file.open("rb") as source:
        shutil.copyfileobj(source, handle)  # journaled: a killed import leaves no copy
    return ingest(bench, job, saved, FILE_PROJECT, {}, tie_break, split,
                  step=f"annotate.import_tasks.{job.name}")
