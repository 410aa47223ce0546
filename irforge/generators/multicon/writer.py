"""Write a MultiConIR build into a benchmark folder: BEIR files, task files, logs, manifest.

Files (named in :mod:`irforge.generators.multicon.layout`, documented in docs/multicon.md)::

    corpus.jsonl queries.jsonl qrels/test.tsv
    multicon/sources.jsonl multicon/task1.jsonl multicon/task2.jsonl multicon/task3.jsonl
    judgments.jsonl failures.jsonl manifest.json

Re-running the build replaces this generator's rows in ``judgments.jsonl`` and
``failures.jsonl`` and keeps rows other steps wrote there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl, write_jsonl
from irforge.generators.multicon.build import STEP, MulticonOutput
from irforge.generators.multicon.layout import LAYOUT


def _replace_own_rows(path: Path, key: str, rows: Iterable[dict[str, Any]]) -> int:
    """Rewrite a JSONL log: rows of other steps kept, this generator's replaced by ``rows``."""
    kept = []
    if path.exists():
        kept = [row for _, row in iter_jsonl(path)
                if not str(row.get(key, "")).startswith(f"{STEP}.")]
    new = list(rows)
    write_jsonl(path, [*kept, *new])
    return len(new)


def counts_of(output: MulticonOutput) -> dict[str, int]:
    """Counts recorded in the manifest and printed by the CLI."""
    return {"sources": len(output.sources), "docs": len(output.docs),
            "queries": len(output.queries), "qrels": len(output.qrels),
            "task1": len(output.tasks["task1"]), "task2": len(output.tasks["task2"]),
            "task3": len(output.tasks["task3"]), "failures": len(output.failures),
            "accepted_llm_outputs": len(output.accepted)}


def write_output(bench: Benchmark, output: MulticonOutput,
                 manifest: Mapping[str, Any]) -> dict[str, int]:
    """Write every file of the build; returns the counts also stored in the manifest."""
    bench.root.mkdir(parents=True, exist_ok=True)
    bench.write_corpus(output.docs)
    bench.write_queries(output.queries)
    bench.write_qrels(output.qrels)
    write_jsonl(LAYOUT.path(bench.root, "sources"), output.sources)
    for name, rows in output.tasks.items():
        write_jsonl(LAYOUT.path(bench.root, name), rows)
    _replace_own_rows(bench.failures_path, "step", (asdict(f) for f in output.failures))
    _replace_own_rows(bench.judgments_path, "task",
                      ({**asdict(j), "metadata": dict(j.metadata)} for j in output.accepted))
    counts = counts_of(output)
    bench.record_step(STEP, {**dict(manifest), "counts": counts,
                             "yield": output.yield_table().to_manifest(),
                             "query_language": output.language})
    return counts
