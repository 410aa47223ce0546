"""Read the (query, passage) pairs to label: explicit pair lists or candidate pools.

Accepted files (one format per file, chosen by content):

- JSONL rows ``{"query_id": ..., "doc_id": ...}`` or ``{"query_id": ..., "doc_ids": [...]}``
  (a pool from ``irforge corpus pool`` or any per-query candidate list);
- a TREC run (``qid Q0 docid rank score tag``): every retrieved document is a candidate;
- TSV with two or three columns (``query-id  corpus-id  [score]``), header optional
  (a qrels file works).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from irforge.core.errors import Problem
from irforge.core.jsonl import iter_lines, report


@dataclass(frozen=True)
class PairRef:
    """A pair to label and the file line it came from (for error messages)."""

    query_id: str
    doc_id: str
    path: Path
    line: int


def _json_row(path: Path, number: int, text: str) -> list[PairRef]:
    try:
        row = json.loads(text)
    except json.JSONDecodeError as exc:
        report(Problem(path, f"malformed JSON: {exc.msg}", line=number,
                       hint="each line must be one JSON object"), None)
        return []
    if not isinstance(row, dict) or not isinstance(row.get("query_id"), str | int):
        report(Problem(path, "needs a string 'query_id'", line=number, field="query_id",
                       hint='rows look like {"query_id": "q1", "doc_id": "d1"}'), None)
        return []
    query_id = str(row["query_id"])
    if "doc_ids" in row:
        docs = row["doc_ids"]
        if not isinstance(docs, list) or not all(isinstance(d, str | int) for d in docs):
            report(Problem(path, "must be a list of document ids", line=number,
                           field="doc_ids"), None)
            return []
        return [PairRef(query_id, str(doc), path, number) for doc in docs]
    if not isinstance(row.get("doc_id"), str | int):
        report(Problem(path, "needs a 'doc_id' (or a 'doc_ids' list)", line=number,
                       field="doc_id"), None)
        return []
    return [PairRef(query_id, str(row["doc_id"]), path, number)]


def read_pairs(path: Path) -> list[PairRef]:
    """Every pair in one file, in file order (duplicates kept; the caller removes them)."""
    path = Path(path)
    out: list[PairRef] = []
    for number, text in iter_lines(path):
        stripped = text.strip()
        if stripped.startswith("{"):
            out.extend(_json_row(path, number, stripped))
            continue
        parts = stripped.split()
        if len(parts) == 6 and parts[1].upper() == "Q0":
            out.append(PairRef(parts[0], parts[2], path, number))
        elif len(parts) in (2, 3):
            if number == 1 and parts[0].lower() in ("query-id", "query_id", "qid"):
                continue
            out.append(PairRef(parts[0], parts[1], path, number))
        else:
            report(Problem(path, f"unrecognised line with {len(parts)} fields", line=number,
                           hint="use JSONL, a TREC run, or 'query-id<TAB>corpus-id' TSV"), None)
    return out
