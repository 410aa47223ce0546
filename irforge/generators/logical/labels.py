"""Graded qrels (ComLQ, Dataset Overview) and negation-violation labels for LSNC@K.

Qrels: 2 when one passage answers the query alone, 1 for each passage of a query whose
evidence is spread over two or three passages. Passages not listed are irrelevant (0).

Negation labels, ``<bench>/logical/negation_labels.jsonl``, one row per (query, passage) of a
query with negation::

    {"query_id": "lq-pin-0000", "doc_id": "d12", "violates": 0, "source": "gold",
     "negated": [{"subject": ..., "relation": ..., "object": ...}]}

``violates`` is LSNC's V(d): 1 when the passage supports the negated branch. Sources:
``gold`` (the query's own passages, 0 by construction) and ``hypothetical`` (passages the
LLM wrote to satisfy the negated branch, 1). Passages without a row count as 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import iter_jsonl, write_jsonl
from irforge.core.layouts.logical import LAYOUT
from irforge.core.records import Qrel


@dataclass(frozen=True)
class NegationLabel:
    """Whether one passage violates the negation of one query (LSNC's V(d))."""

    query_id: str
    doc_id: str
    violates: int
    source: str
    negated: tuple[Mapping[str, str], ...] = field(default=())


def graded_qrels(query_id: str, doc_ids: Sequence[str]) -> list[Qrel]:
    """ComLQ's grades: 2 for a single answering passage, 1 for each of several."""
    grade = 2 if len(doc_ids) == 1 else 1
    return [Qrel(query_id, doc_id, grade) for doc_id in doc_ids]


def negation_labels(query_id: str, gold_ids: Sequence[str], violating_ids: Sequence[str],
                    negated: Sequence[Mapping[str, str]]) -> list[NegationLabel]:
    """Label rows for one negation query: its passages do not violate, written violators do."""
    negated = tuple(dict(item) for item in negated)
    return ([NegationLabel(query_id, doc_id, 0, "gold", negated) for doc_id in gold_ids]
            + [NegationLabel(query_id, doc_id, 1, "hypothetical", negated)
               for doc_id in violating_ids])


def labels_path(bench_root: Path) -> Path:
    """``logical/negation_labels.jsonl`` of a folder (the method's Layout names it)."""
    return LAYOUT.path(bench_root, "negation_labels")


def label_rows(labels: Iterable[NegationLabel]) -> list[dict[str, Any]]:
    """The labels file's JSONL rows."""
    return [{**asdict(label), "negated": [dict(item) for item in label.negated]}
            for label in labels]


def write_negation_labels(bench_root: Path, labels: Iterable[NegationLabel]) -> int:
    """Atomically write the labels file of a benchmark folder; returns the row count."""
    return write_jsonl(labels_path(bench_root), label_rows(labels))


def read_violations(path: Path) -> dict[str, dict[str, int]]:
    """``{query_id: {doc_id: 0|1}}`` from a labels file, for LSNC@K; bad rows name the line."""
    out: dict[str, dict[str, int]] = {}
    for number, row in iter_jsonl(Path(path)):
        for name in ("query_id", "doc_id", "violates"):
            if name not in row:
                raise FormatError(Problem(Path(path), "missing field", number, name,
                                          "each row needs query_id, doc_id and violates"))
        value: Any = row["violates"]
        if isinstance(value, (bool, float)) or value not in (0, 1):
            raise FormatError(Problem(Path(path), f"violates must be 0 or 1, got {value!r}",
                                      number, "violates"))
        out.setdefault(str(row["query_id"]), {})[str(row["doc_id"])] = int(value)
    return out
