"""``irforge eval`` on a benchmark folder or on every benchmark of a run folder.

Each benchmark gets its own ``eval/`` outputs (runs, results.json, report); a collection also
gets one combined report, ``ROOT/eval/collection.md`` and ``collection.json``, with each
benchmark's means side by side. A paper measure a benchmark has no files for (LSNC on the
MultiConIR folder) is left out of that benchmark with a note, never of all of them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.collection import Outcomes, benchmark_folders, for_each
from irforge.core.errors import IrforgeError
from irforge.core.jsonl import atomic_open


@dataclass(frozen=True)
class EvalOptions:
    """Everything ``evaluate_benchmark`` takes besides the folder, plus how outputs are written."""

    retrievers: Sequence[str] = ("bm25",)
    rerankers: Sequence[str] = ()
    metrics: Sequence[str] = ("ndcg@10",)
    run_files: Sequence[Path] = ()
    split: str = "test"
    depth: int = 100
    rerank_k: int = 50
    group_field: str = "type"
    ann: bool = False
    query_prefix: str = ""
    passage_prefix: str = ""
    pipelines: Sequence[str] = ()
    decomposers: Sequence[str] = ("fixed",)
    fusions: Sequence[str] = ("sum",)
    seed: int = 0
    bootstrap: int = 1000
    trials: int = 10_000
    plots: bool = True
    replace: bool = False
    allow_untrusted: bool = False  # score qrels whose judge failed its controls


@dataclass
class Evaluated:
    """One benchmark's results, the files written and the measures left out of it."""

    results: Any  # irforge.eval.runner.EvalResults
    written: dict[str, Path]
    skipped: list[str] = field(default_factory=list)


def evaluate_folders(root: Path, options: EvalOptions, out: Path | None = None,
                     engine=None) -> tuple[Outcomes[Evaluated], dict[str, Path]]:
    """Evaluate ``root`` or each benchmark under it; returns the outcomes and the combined
    report's files (empty for a single benchmark)."""
    from irforge.eval.metrics.registry import parse_metrics

    measures = parse_metrics(options.metrics)  # a typo fails once, before any retrieval
    found = benchmark_folders(root) if Path(root).is_dir() else None
    if found is None or not found.is_collection:
        target = Path(out) if out else Path(root) / "eval"
        return Outcomes([(Path(root).name, _evaluate(Path(root), options, measures, target,
                                                     engine, strict=True))]), {}
    if options.run_files:
        raise IrforgeError(f"{root} is a run folder with {len(found.folders)} benchmarks; a "
                           "--run file ranks one benchmark's documents: pass its method "
                           f"folder (one of {', '.join(found.name(f) for f in found.folders)})")
    _applicable_somewhere(found.folders, measures)
    outcomes = for_each(found, lambda name, folder: _evaluate(
        folder, options, measures, Path(out) / name if out else folder / "eval", engine,
        strict=False))
    return outcomes, write_combined(outcomes, Path(out) if out else found.root / "eval")


def _evaluate(folder: Path, options: EvalOptions, measures, out_dir: Path, engine,
              strict: bool) -> Evaluated:
    from irforge.eval.metrics.papers import missing_files
    from irforge.eval.report import write_outputs
    from irforge.eval.runner import evaluate_benchmark

    skipped = [] if strict else [line for m in measures if m.is_paper
                                 for line in missing_files(folder, [m])]
    kept = [m for m in measures if strict or not missing_files(folder, [m])]
    if not kept:
        raise IrforgeError(f"none of the metrics asked for applies to {folder}: "
                           + "; ".join(skipped))
    results = evaluate_benchmark(
        folder, retrievers=options.retrievers, rerankers=options.rerankers,
        metrics=list(options.metrics) if strict else [str(m) for m in kept],
        run_files=options.run_files,
        split=options.split, depth=options.depth, rerank_k=options.rerank_k,
        group_field=options.group_field, ann=options.ann,
        cache_dir=folder / ".irforge" / "embeddings", query_prefix=options.query_prefix,
        passage_prefix=options.passage_prefix, pipelines=options.pipelines,
        decomposers=options.decomposers, fusions=options.fusions, engine=engine,
        seed=options.seed, bootstrap=options.bootstrap, trials=options.trials,
        allow_untrusted=options.allow_untrusted)
    written = write_outputs(results, out_dir, plots=options.plots, replace=options.replace)
    return Evaluated(results, written, skipped)


def _applicable_somewhere(folders: Sequence[Path], measures) -> None:
    """A paper measure no benchmark of the collection has files for is a user error."""
    from irforge.eval.metrics.papers import missing_files

    for measure in measures:
        if measure.is_paper and all(missing_files(f, [measure]) for f in folders):
            raise IrforgeError(f"no benchmark here has the files {measure} needs: "
                               f"{missing_files(folders[0], [measure])[0]}")


def combined_rows(outcomes: Outcomes[Evaluated]) -> list[dict[str, Any]]:
    """One row per (benchmark, system): its means, query count and split."""
    return [{"benchmark": name, "system": system.name, "split": done.results.split,
             "queries": done.results.queries, "means": dict(system.means)}
            for name, done in outcomes.done for system in done.results.systems]


def write_combined(outcomes: Outcomes[Evaluated], out_dir: Path) -> dict[str, Path]:
    """``collection.json`` and ``collection.md``: every benchmark's means in one table."""
    rows = combined_rows(outcomes)
    metrics = list(dict.fromkeys(m for row in rows for m in row["means"]))
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {"rows": rows, "reports": {name: str(done.written["report"])
                                      for name, done in outcomes.done},
            "skipped": {name: done.skipped for name, done in outcomes.done if done.skipped},
            "failed": {name: str(error) for name, error in outcomes.failed}}
    with atomic_open(out_dir / "collection.json") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
    lines = ["# irforge eval: every benchmark of the run", "",
             "| benchmark | system | split | queries | " + " | ".join(metrics) + " |",
             "|" + "---|" * (4 + len(metrics))]
    for row in rows:
        cells = [f"{row['means'][m]:.4f}" if m in row["means"] else "-" for m in metrics]
        lines.append(f"| {row['benchmark']} | {row['system']} | {row['split']} | "
                     f"{row['queries']} | " + " | ".join(cells) + " |")
    lines += ["", *(f"- {name}: details in `{path}`" for name, path in data["reports"].items())]
    lines += [f"- {name}: not computed here: {line}" for name, skipped in data["skipped"].items()
              for line in skipped]
    lines += [f"- {name}: FAILED: {error}" for name, error in data["failed"].items()]
    with atomic_open(out_dir / "collection.md") as handle:
        handle.write("\n".join(lines) + "\n")
    return {"json": out_dir / "collection.json", "report": out_dir / "collection.md"}
