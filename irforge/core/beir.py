"""Streaming, atomic read/write of a benchmark folder in the BEIR layout.

``corpus.jsonl`` rows are ``{"_id", "title", "text", "metadata"}``, ``queries.jsonl`` rows
``{"_id", "text", "metadata"}``, ``qrels/<split>.tsv`` has the header
``query-id<TAB>corpus-id<TAB>score``: the names BEIR's GenericDataLoader and MTEB read.
Extra top-level keys found in foreign files (ComLQ's ``answer``, ``type``) are read into
``metadata``. Readers raise :class:`~irforge.core.errors.FormatError` naming file, line and field,
or, given ``on_problem``, report every problem and go on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from irforge.core.errors import Problem
from irforge.core.jsonl import OnProblem, append_jsonl, atomic_open, iter_jsonl, iter_lines, report
from irforge.core.jsonl import write_jsonl as _write_jsonl
from irforge.core.records import Doc, Failure, Judgment, Qrel, Query

QRELS_HEADER = ("query-id", "corpus-id", "score")
_DOC_KEYS = {"_id", "title", "text", "metadata"}
_QUERY_KEYS = {"_id", "text", "metadata"}


def _id_of(path: Path, number: int, row: dict[str, Any], on_problem: OnProblem) -> str | None:
    value = row.get("_id")
    if value is None or (isinstance(value, str) and not value.strip()):
        report(Problem(path, "missing or empty id", line=number, field="_id",
                       hint='every row needs a unique "_id" string'), on_problem)
        return None
    if not isinstance(value, str | int) or isinstance(value, bool):
        report(Problem(path, f"id must be a string, got {type(value).__name__}", line=number,
                       field="_id"), on_problem)
        return None
    return str(value)


def _text_of(path: Path, number: int, row: dict[str, Any], key: str, on_problem: OnProblem,
             required: bool = True) -> str | None:
    value = row.get(key, None if required else "")
    if value is None:
        report(Problem(path, "missing", line=number, field=key,
                       hint=f'add a "{key}" string to the row'), on_problem)
        return None
    if not isinstance(value, str):
        report(Problem(path, f"must be a string, got {type(value).__name__}", line=number,
                       field=key), on_problem)
        return None
    return value


def _metadata_of(path: Path, number: int, row: dict[str, Any], known: set[str],
                 on_problem: OnProblem) -> dict[str, Any]:
    meta = row.get("metadata") or {}
    if not isinstance(meta, dict):
        report(Problem(path, "must be a JSON object", line=number, field="metadata"), on_problem)
        meta = {}
    extra = {key: value for key, value in row.items() if key not in known}
    return {**extra, **meta}


class _Unique:
    """Tracks ids seen in one file to report duplicates with both line numbers."""

    def __init__(self, path: Path, on_problem: OnProblem) -> None:
        self.path, self.on_problem, self.seen = path, on_problem, {}

    def fresh(self, item_id: str, number: int) -> bool:
        first = self.seen.setdefault(item_id, number)
        if first != number:
            report(Problem(self.path, f"duplicate id {item_id!r} (first on line {first})",
                           line=number, field="_id", hint="ids must be unique"), self.on_problem)
            return False
        return True


def read_corpus(path: Path, on_problem: OnProblem = None) -> Iterator[Doc]:
    """Stream the documents of a BEIR ``corpus.jsonl``."""
    path = Path(path)
    unique = _Unique(path, on_problem)
    for number, row in iter_jsonl(path, on_problem):
        doc_id = _id_of(path, number, row, on_problem)
        text = _text_of(path, number, row, "text", on_problem)
        title = _text_of(path, number, row, "title", on_problem, required=False)
        if doc_id is None or text is None or title is None or not unique.fresh(doc_id, number):
            continue
        meta = _metadata_of(path, number, row, _DOC_KEYS, on_problem)
        yield Doc(doc_id=doc_id, text=text, title=title, metadata=meta)


def read_queries(path: Path, on_problem: OnProblem = None) -> Iterator[Query]:
    """Stream the queries of a BEIR ``queries.jsonl``."""
    path = Path(path)
    unique = _Unique(path, on_problem)
    for number, row in iter_jsonl(path, on_problem):
        query_id = _id_of(path, number, row, on_problem)
        text = _text_of(path, number, row, "text", on_problem)
        if query_id is None or text is None or not unique.fresh(query_id, number):
            continue
        meta = _metadata_of(path, number, row, _QUERY_KEYS, on_problem)
        yield Query(query_id=query_id, text=text, metadata=meta)


def read_qrels(path: Path, on_problem: OnProblem = None) -> Iterator[Qrel]:
    """Stream a BEIR qrels TSV (header optional; TREC's 4-column form is accepted too)."""
    return (qrel for _, qrel in read_qrels_numbered(path, on_problem))


def read_qrels_numbered(path: Path, on_problem: OnProblem = None) -> Iterator[tuple[int, Qrel]]:
    """Like :func:`read_qrels`, with the line number of each qrel (for error reports)."""
    path = Path(path)
    seen: dict[tuple[str, str], int] = {}
    for number, text in iter_lines(path, on_problem):
        cells = text.split("\t") if "\t" in text else text.split()
        if number == 1 and tuple(cell.strip().lower() for cell in cells[:3]) == QRELS_HEADER:
            continue
        if len(cells) == 4:  # TREC: qid iter docid rel
            cells = [cells[0], cells[2], cells[3]]
        if len(cells) != 3:
            report(Problem(path, f"expected 3 tab-separated columns, got {len(cells)}",
                           line=number, hint="rows are: query-id<TAB>corpus-id<TAB>score"),
                   on_problem)
            continue
        query_id, doc_id, score = (cell.strip() for cell in cells)
        try:
            relevance = int(score)
        except ValueError:
            try:
                as_float = float(score)
            except ValueError:
                as_float = None
            if as_float is None or not as_float.is_integer():
                report(Problem(path, f"score {score!r} is not an integer", line=number,
                               field="score", hint="relevance grades are integers (0, 1, 2...)"),
                       on_problem)
                continue
            relevance = int(as_float)
        if not query_id or not doc_id:
            report(Problem(path, "empty query-id or corpus-id", line=number), on_problem)
            continue
        first = seen.setdefault((query_id, doc_id), number)
        if first != number:
            report(Problem(path, f"duplicate pair ({query_id}, {doc_id}) (first on line {first})",
                           line=number, hint="keep one grade per query and document"), on_problem)
            continue
        yield number, Qrel(query_id=query_id, doc_id=doc_id, relevance=relevance)


def doc_row(doc: Doc) -> dict[str, Any]:
    row: dict[str, Any] = {"_id": doc.doc_id, "title": doc.title, "text": doc.text}
    if doc.metadata:
        row["metadata"] = dict(doc.metadata)
    return row


def query_row(query: Query) -> dict[str, Any]:
    row: dict[str, Any] = {"_id": query.query_id, "text": query.text}
    if query.metadata:
        row["metadata"] = dict(query.metadata)
    return row


def write_corpus(path: Path, docs: Iterable[Doc]) -> int:
    return _write_jsonl(path, (doc_row(doc) for doc in docs))


def write_queries(path: Path, queries: Iterable[Query]) -> int:
    return _write_jsonl(path, (query_row(query) for query in queries))


def write_qrels(path: Path, qrels: Iterable[Qrel]) -> int:
    """Atomically write a BEIR qrels TSV with its header."""
    count = 0
    with atomic_open(path) as handle:
        handle.write("\t".join(QRELS_HEADER) + "\n")
        for qrel in qrels:
            handle.write(f"{qrel.query_id}\t{qrel.doc_id}\t{int(qrel.relevance)}\n")
            count += 1
    return count


def judgment_row(judgment: Judgment) -> dict[str, Any]:
    row = asdict(judgment)
    row["metadata"] = dict(judgment.metadata)
    return row


def read_judgments(path: Path, on_problem: OnProblem = None) -> Iterator[Judgment]:
    """Stream ``judgments.jsonl``: every LLM or human label with its provenance."""
    path = Path(path)
    for number, row in iter_jsonl(path, on_problem):
        missing = [key for key in ("query_id", "doc_id", "label", "source") if key not in row]
        if missing:
            report(Problem(path, "missing", line=number, field=missing[0]), on_problem)
            continue
        if row["source"] not in ("llm", "human"):
            report(Problem(path, f"unknown source {row['source']!r}", line=number, field="source",
                           hint='use "llm" or "human"'), on_problem)
            continue
        known = {key: row[key] for key in Judgment.__dataclass_fields__ if key in row}
        known["query_id"], known["doc_id"] = str(known["query_id"]), str(known["doc_id"])
        known["metadata"] = known.get("metadata") or {}
        yield Judgment(**known)


def append_judgments(path: Path, judgments: Iterable[Judgment]) -> int:
    return append_jsonl(path, (judgment_row(j) for j in judgments))


def read_failures(path: Path, on_problem: OnProblem = None) -> Iterator[Failure]:
    path = Path(path)
    for number, row in iter_jsonl(path, on_problem):
        if "step" not in row or "reason" not in row:
            report(Problem(path, "missing", line=number,
                           field="step" if "step" not in row else "reason"), on_problem)
            continue
        known = {key: row[key] for key in Failure.__dataclass_fields__ if key in row}
        known.setdefault("item_id", "")
        known["metadata"] = known.get("metadata") or {}
        yield Failure(**known)


def append_failures(path: Path, failures: Iterable[Failure]) -> int:
    return append_jsonl(path, (asdict(failure) for failure in failures))


def require_known_qrels(path: Path, pairs: Iterable[tuple[str, str]], query_ids: set[str],
                        doc_ids: set[str], root: Path, verb: str) -> None:
    """The one check every verb makes before using qrels (eval, export): each names a query
    and a document of the folder, else :class:`~irforge.core.errors.IrforgeError` (exit 2)."""
    from irforge.core.errors import IrforgeError

    outside = [(q, d) for q, d in pairs if q not in query_ids or d not in doc_ids]
    if outside:
        query_id, doc_id = outside[0]
        raise IrforgeError(
            f"{path}: {len(outside)} qrel(s) name a query or document that is not in the "
            f"folder, e.g. ({query_id}, {doc_id}); run `irforge check {root}` and fix it "
            f"before {verb}")
