"""A MultiConIR build's records, written by its runner: BEIR files, task files, logs, manifest.

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

from irforge.core.layouts.multicon import LAYOUT
from irforge.generators.multicon.build import STEP, MulticonOutput
from irforge.steps.records import Records
from irforge.steps.runner import BuildRunner

METHOD = "MultiConIR (multi-condition queries, hard-negative documents)"


def counts_of(output: MulticonOutput) -> dict[str, int]:
    """Counts recorded in the manifest and printed by the CLI."""
    return {"sources": len(output.sources), "docs": len(output.docs),
            "queries": len(output.queries), "qrels": len(output.qrels),
            "task1": len(output.tasks["task1"]), "task2": len(output.tasks["task2"]),
            "task3": len(output.tasks["task3"]), "failures": len(output.failures),
            "accepted_llm_outputs": len(output.accepted)}


def records_of(output: MulticonOutput) -> Records:
    """The build's files: BEIR corpus, queries and qrels, the sources and the three tasks."""
    return Records(corpus=output.docs, queries=output.queries, qrels={"test": output.qrels},
                   files={LAYOUT.relative("sources"): output.sources,
                          **{LAYOUT.relative(name): rows for name, rows in output.tasks.items()}})


def write_output(runner: BuildRunner, output: MulticonOutput, config: Mapping[str, Any],
                 details: Mapping[str, Any] | None = None) -> dict[str, int]:
    """Hand every file of the build to ``runner`` (generated on it: its ledger holds the logs)
    and record the manifest entry; this generator's earlier log rows are replaced. Returns
    the counts also stored in the manifest."""
    runner.write(records_of(output))
    runner.write_logs(owner=f"{STEP}.")
    counts = counts_of(output)
    runner.record(METHOD, config, counts, details, step=STEP)
    return counts
