"""A Hugging Face dataset folder in the layout MTEB's retrieval loader reads.

Configs (declared in the README's YAML header, so ``datasets`` globs nothing else):
``corpus`` (``_id``, ``title``, ``text``, ``metadata``), ``queries`` (``_id``, ``text``,
``instruction`` when some query has one, ``metadata``) and ``default`` (the qrels:
``query-id``, ``corpus-id``, ``score``; one split per qrels split). ``metadata`` is a JSON
string so that rows with different method fields share one schema.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from irforge.core.errors import IrforgeError
from irforge.core.jsonl import atomic_open, write_jsonl
from irforge.core.redact import redact_data
from irforge.export.source import ExportSource, instruction_of

FILE_FORMATS = ("parquet", "jsonl")


def _meta(metadata: Mapping[str, Any]) -> str:
    return json.dumps(dict(metadata), ensure_ascii=False, sort_keys=True, default=str)


def corpus_rows(source: ExportSource) -> list[dict[str, Any]]:
    return [{"_id": d.doc_id, "title": d.title, "text": d.text, "metadata": _meta(d.metadata)}
            for d in source.docs]


def query_rows(source: ExportSource) -> list[dict[str, Any]]:
    """Query rows; the ``instruction`` column appears when at least one query has one."""
    with_instruction = any(instruction_of(q) for q in source.queries)
    rows = []
    for query in source.queries:
        row: dict[str, Any] = {"_id": query.query_id, "text": query.text}
        if with_instruction:
            row["instruction"] = instruction_of(query)
        row["metadata"] = _meta(query.metadata)
        rows.append(row)
    return rows


def _write(path: Path, rows: list[dict[str, Any]], file_format: str) -> Path:
    path = path.with_suffix(f".{file_format}")
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = redact_data(rows)  # no credential reaches a published file
    if file_format == "jsonl":
        write_jsonl(path, rows)
        return path
    import pyarrow as pa
    import pyarrow.parquet as pq

    with atomic_open(path, "wb") as handle:  # renamed into place whole (a journaled write)
        pq.write_table(pa.Table.from_pylist(rows), handle)
    return path


def write_configs(source: ExportSource, out: Path, file_format: str = "parquet"
                  ) -> tuple[list[Path], list[dict[str, Any]]]:
    """Write the data files; returns them and the ``configs`` entries for the README header."""
    if file_format not in FILE_FORMATS:
        raise IrforgeError(f"unknown --file-format {file_format!r}; use parquet or jsonl")
    corpus = _write(out / "corpus" / "corpus", corpus_rows(source), file_format)
    queries = _write(out / "queries" / "queries", query_rows(source), file_format)
    qrels = {split: _write(out / "qrels" / split,
                           [{"query-id": q.query_id, "corpus-id": q.doc_id,
                             "score": int(q.relevance)} for q in rows], file_format)
             for split, rows in source.qrels.items()}
    configs = [
        {"config_name": "corpus", "data_files": [{"split": "corpus",
                                                  "path": str(corpus.relative_to(out))}]},
        {"config_name": "queries", "data_files": [{"split": "queries",
                                                   "path": str(queries.relative_to(out))}]},
        {"config_name": "default", "default": True,
         "data_files": [{"split": split, "path": str(path.relative_to(out))}
                        for split, path in qrels.items()]},
    ]
    return [corpus, queries, *qrels.values()], configs


def front_matter(configs: Iterable[Mapping[str, Any]], extra: Mapping[str, Any]) -> str:
    """The YAML header of a dataset card."""
    import yaml

    data = {**dict(extra), "configs": list(configs)}
    return "---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n"
