"""Existing corpora as input: a BEIR ``corpus.jsonl`` (or any JSONL of ``{_id, text}`` rows),
a Parquet file of such rows, and a Hugging Face dataset folder (``save_to_disk``).

Every row becomes one document whose id is the row's own id (``_id``, else ``id`` or
``doc_id``); ``text`` (or ``contents``) and an optional ``title`` are read. The file is checked
whole before any row is kept: a malformed line, a row without an id or text, or a repeated id
skips the file with the line and field to fix, so a half-read corpus never enters a benchmark.
Rows are streamed, so memory does not grow with the corpus.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from irforge.core.errors import require

ID_FIELDS = ("_id", "id", "doc_id")
TEXT_FIELDS = ("text", "contents")
HF_MARKERS = ("dataset_info.json", "state.json", "dataset_dict.json")
CORPUS_SUFFIXES = (".jsonl", ".parquet")


class BadCorpus(ValueError):
    """A corpus file that cannot be read as it is; the message names the line and field."""


def is_hf_dataset_folder(folder: Path) -> bool:
    """A folder written by ``datasets.Dataset.save_to_disk`` (or a ``DatasetDict``)."""
    return any((Path(folder) / marker).is_file() for marker in HF_MARKERS)


def _jsonl_rows(path: Path) -> Iterator[tuple[int, Any]]:
    with Path(path).open(encoding="utf-8-sig", errors="strict") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise BadCorpus(f"broken: line {number}: not JSON ({exc.msg}); each line must "
                                "be one object like {\"_id\": ..., \"text\": ...}") from exc


def _parquet_rows(path: Path) -> Iterator[tuple[int, Any]]:
    parquet = require("pyarrow.parquet", "export")
    number = 0
    for batch in parquet.ParquetFile(str(path)).iter_batches(batch_size=1024):
        for record in batch.to_pylist():
            number += 1
            yield number, record


def _hf_rows(folder: Path) -> Iterator[tuple[int, Any]]:
    datasets = require("datasets", "export")
    loaded = datasets.load_from_disk(str(folder))
    splits = loaded.values() if isinstance(loaded, datasets.DatasetDict) else [loaded]
    number = 0
    for split in splits:
        for record in split:
            number += 1
            yield number, record


def raw_rows(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line or row number, row)`` of a corpus file or dataset folder, streamed."""
    path = Path(path)
    if path.is_dir():
        return _hf_rows(path)
    if path.suffix.lower() == ".parquet":
        return _parquet_rows(path)
    return _jsonl_rows(path)


def _field(record: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((record[name] for name in names if record.get(name) not in (None, "")), None)


def corpus_rows(path: Path) -> Iterator[tuple[int, str, str, str]]:
    """``(line, id, title, text)`` of every row; raises :class:`BadCorpus` at the first bad one."""
    for number, record in raw_rows(path):
        if not isinstance(record, dict):
            raise BadCorpus(f"broken: line {number}: a {type(record).__name__}, not an object "
                            "with _id and text")
        doc_id, text = _field(record, ID_FIELDS), _field(record, TEXT_FIELDS)
        if doc_id is None:
            raise BadCorpus(f"broken: line {number}: field '_id' is missing (also looked for "
                            "'id' and 'doc_id'); give every row a unique _id")
        if not isinstance(text, str):
            raise BadCorpus(f"broken: line {number}: field 'text' is missing or not a string "
                            "(also looked for 'contents')")
        yield number, str(doc_id), str(record.get("title") or ""), text


def check_corpus(path: Path, max_chars: int) -> int:
    """Read the whole corpus once: its row count, or :class:`BadCorpus` naming the problem."""
    seen: set[str] = set()
    for number, doc_id, _title, text in corpus_rows(path):
        if doc_id in seen:
            raise BadCorpus(f"broken: line {number}: _id {doc_id!r} is repeated; ids must be "
                            "unique")
        if any(ch.isspace() for ch in doc_id):
            raise BadCorpus(f"broken: line {number}: _id {doc_id!r} contains whitespace; "
                            "rename it (ids are written into qrels files)")
        if len(text) > max_chars:
            raise BadCorpus(f"too-large: line {number}: row {doc_id!r} has {len(text):,} "
                            f"characters, more than the cap of {max_chars:,} (--max-doc-chars)")
        seen.add(doc_id)
    if not seen:
        raise BadCorpus("empty: the corpus file has no rows")
    return len(seen)
