"""Write a MultiConIR build into a benchmark folder: BEIR files, task files, logs, manifest.

Files (named in :mod:`irforge.core.layouts.multicon`, documented in docs/multicon.md)::

    corpus.jsonl queries.jsonl qrels/test.tsv
    multicon/sources.jsonl multicon/task1.jsonl multicon/task2.jsonl multicon/task3.jsonl
    judgments.jsonl failures.jsonl manifest.json

Re-running the build replaces this generator's rows in ``judgments.jsonl`` and
``failures.jsonl`` and keeps rows other steps wrote there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.jsonl import write_jsonl
from irforge.core.layouts.multicon import LAYOUT
from irforge.generators.multicon.build import STEP, MulticonOutput
from irforge.steps.runner import method_entry

METHOD = "MultiConIR (multi-condition queries, hard-negative documents)"


def counts_of(output: MulticonOutput) -> dict[str, int]:
    """Counts recorded in the manifest and printed by the CLI."""
    return {"sources": len(output.sources), "docs": len(output.docs),
            "queries": len(output.queries), "qrels": len(output.qrels),
            "task1": len(output.tasks["task1"]), "task2": len(output.tasks["task2"]),
            "task3": len(output.tasks["task3"]), "failures": len(output.failures),
            "accepted_llm_outputs": len(output.accepted)}


def write_output(bench: Benchmark, output: MulticonOutput,
                 manifest: Mapping[str, Any]) -> dict[str, int]:
    """Write every file of the build; returns the counts also stored in the manifest.

    ``manifest`` holds the entry's ``config``, ``engine`` and ``details`` (the one layout of
    :func:`~irforge.steps.runner.method_entry`); the logs go through :class:`Benchmark`
    (redacted), this generator's earlier rows replaced.
    """
    bench.root.mkdir(parents=True, exist_ok=True)
    bench.write_corpus(output.docs)
    bench.write_queries(output.queries)
    bench.write_qrels(output.qrels)
    write_jsonl(LAYOUT.path(bench.root, "sources"), output.sources)
    for name, rows in output.tasks.items():
        write_jsonl(LAYOUT.path(bench.root, name), rows)
    bench.replace_logs(f"{STEP}.", output.failures, output.accepted)
    counts = counts_of(output)
    bench.record_step(STEP, method_entry(
        METHOD, manifest.get("config", {}), manifest.get("engine", {}), counts,
        output.yield_table(), len(output.failures), output.language,
        manifest.get("details", {})))
    return counts
