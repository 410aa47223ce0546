"""What a build hands the runner to write, and the one function that writes it.

A method's build returns :class:`Records` (corpus, queries, qrels by split, its own layout's
JSONL files); :meth:`~irforge.steps.runner.BuildRunner.write` writes them through
:class:`~irforge.core.bench.Benchmark` (each file atomically, under the folder's lock).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.jsonl import write_jsonl
from irforge.core.records import Doc, Qrel, Query


@dataclass(frozen=True)
class Records:
    """A build's files. ``replaces`` set: ``queries`` merge into the folder's (an existing
    query stays unless ``replaces(query)`` or a new one has its id); unset: they replace it.
    ``files`` maps a path relative to the folder (a layout's file) to its JSONL rows."""

    corpus: Sequence[Doc] | None = None
    queries: Sequence[Query] | None = None
    replaces: Callable[[Query], bool] | None = None
    qrels: Mapping[str, Sequence[Qrel]] = field(default_factory=dict)
    files: Mapping[str, Iterable[Mapping[str, Any]]] = field(default_factory=dict)


def write_records(bench: Benchmark, records: Records) -> dict[str, int]:
    """Write ``records`` into ``bench``; returns the rows written: ``docs``, ``queries``,
    ``qrels/<split>`` and each file's relative path."""
    bench.root.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    with bench.writing():
        if records.corpus is not None:
            counts["docs"] = bench.write_corpus(records.corpus)
        if records.queries is not None:
            counts["queries"] = bench.write_queries(records.queries) \
                if records.replaces is None \
                else bench.merge_queries(records.queries, records.replaces)
        for split, qrels in records.qrels.items():
            counts[f"qrels/{split}"] = bench.write_qrels(qrels, split)
        for relative, rows in records.files.items():
            counts[relative] = write_jsonl(bench.root / relative, rows)
    return counts
