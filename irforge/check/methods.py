"""``irforge check``'s method files: MultiConIR tasks and logical negation labels.

Each row must be well formed and name queries and documents that exist; qrels splits such as
the instruction-following ``og``/``changed``/``reversed`` are checked with every other split.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import iter_jsonl
from irforge.core.layouts.logical import LAYOUT as LOGICAL
from irforge.core.layouts.multicon import LAYOUT as MULTICON

Add = Callable[[Problem], None]

# MultiConIR task files: the fields that name queries and documents, per task
TASK_QUERY_FIELDS = {"task1": ("query_id",), "task2": ("query_id",),
                     "task3": ("instruction_query", "descriptive_query")}
TASK_DOC_FIELDS = {"task1": ("positive", "hard_negative"), "task2": (), "task3": ()}


def _rows(path: Path, add: Add) -> Iterable[tuple[int, dict[str, Any]]]:
    try:
        yield from iter_jsonl(path)
    except FormatError as exc:
        add(exc.problem)


def _known(path: Path, number: int, row: dict[str, Any], name: str, known: set[str],
           what: str, add: Add) -> None:
    value = row.get(name)
    if not isinstance(value, str) or not value:
        add(Problem(path, "missing or not a string", line=number, field=name,
                    hint=f"each row names a {what}"))
    elif known and value not in known:
        add(Problem(path, f"unknown {what} {value!r}", line=number, field=name,
                    hint=f"the {what} must exist in the benchmark; rebuild the method files"))


def check_multicon(bench: Benchmark, doc_ids: set[str], query_ids: set[str], add: Add) -> int:
    """Rows of the MultiConIR task files: known queries and documents, candidate lists."""
    rows = 0
    for task in sorted(TASK_QUERY_FIELDS):
        path = MULTICON.path(bench.root, task)
        if not path.exists():
            continue
        for number, row in _rows(path, add):
            rows += 1
            for name in TASK_QUERY_FIELDS[task]:
                _known(path, number, row, name, query_ids, "query", add)
            for name in TASK_DOC_FIELDS[task]:
                _known(path, number, row, name, doc_ids, "document", add)
            if task in ("task2", "task3"):
                candidates = row.get("candidates")
                if not isinstance(candidates, list) or not candidates:
                    add(Problem(path, "missing or empty candidate list", line=number,
                                field="candidates", hint="list the ranked documents"))
                    continue
                for candidate in candidates:
                    _known(path, number, candidate if isinstance(candidate, dict) else {},
                           "doc_id", doc_ids, "document", add)
    return rows


def check_negation_labels(bench: Benchmark, doc_ids: set[str], query_ids: set[str],
                          add: Add) -> int:
    """Rows of the logical negation labels: known query and passage, violates 0 or 1."""
    path = LOGICAL.path(bench.root, "negation_labels")
    if not path.exists():
        return 0
    rows = 0
    for number, row in _rows(path, add):
        rows += 1
        _known(path, number, row, "query_id", query_ids, "query", add)
        _known(path, number, row, "doc_id", doc_ids, "document", add)
        value = row.get("violates")
        if isinstance(value, (bool, float)) or value not in (0, 1):
            add(Problem(path, f"violates must be 0 or 1, got {value!r}", line=number,
                        field="violates", hint="1 when the passage supports the negated part"))
    return rows
