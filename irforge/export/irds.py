"""ir_datasets export: ``docs.jsonl``, ``queries.jsonl``, TREC qrels and ``irds.json``, plus
the one call that registers the folder with ir_datasets::

    from irforge.export.irds import register
    name = register("exported/folder")            # "irforge/<folder name>"
    dataset = ir_datasets.load(name)              # docs_iter(), queries_iter(), qrels_iter()

Each qrels split is also registered as ``<name>/<split>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from irforge.core.errors import IrforgeError, require
from irforge.core.jsonl import write_json, write_jsonl
from irforge.export import trec
from irforge.export.source import ExportResult, ExportSource, instruction_of

SPEC_FILE = "irds.json"
RELEVANCE_DEFS = {0: "not relevant", 1: "relevant", 2: "highly relevant", 3: "perfectly relevant"}


class IrforgeDoc(NamedTuple):
    """A passage as ir_datasets yields it."""

    doc_id: str
    title: str
    text: str

    def default_text(self) -> str:
        return f"{self.title} {self.text}" if self.title else self.text


class IrforgeQuery(NamedTuple):
    """A query as ir_datasets yields it (``instruction`` is '' for plain queries)."""

    query_id: str
    text: str
    instruction: str

    def default_text(self) -> str:
        return self.text


def export(source: ExportSource, out: Path, name: str | None = None) -> ExportResult:
    trec._check_ids(source)
    docs, queries = out / "docs.jsonl", out / "queries.jsonl"
    write_jsonl(docs, ({"doc_id": d.doc_id, "title": d.title, "text": d.text}
                       for d in source.docs))
    write_jsonl(queries, ({"query_id": q.query_id, "text": q.text,
                           "instruction": instruction_of(q)} for q in source.queries))
    files = [docs, queries]
    splits = {}
    for split, rows in source.qrels.items():
        path = out / "qrels" / f"{split}.qrels"
        trec.write_trec_qrels(path, rows)
        files.append(path)
        splits[split] = str(path.relative_to(out))
    spec_path = out / SPEC_FILE
    dataset_name = name or f"irforge/{source.name}"
    write_json(spec_path, {"name": dataset_name, "docs": "docs.jsonl",
                           "queries": "queries.jsonl", "qrels": splits,
                           "main_split": source.main_split()})
    files.append(spec_path)
    return ExportResult("ir_datasets", out, files, source.counts(),
                        [f"register: from irforge.export.irds import register; "
                         f"register({str(out)!r})  # then ir_datasets.load({dataset_name!r})"])


def register(folder: Path | str, name: str | None = None) -> str:
    """Register an exported folder with ir_datasets; returns the name to ``ir_datasets.load``."""
    folder = Path(folder)
    spec_path = folder / SPEC_FILE
    if not spec_path.is_file():
        raise IrforgeError(f"{spec_path} not found: export the benchmark first with "
                           f"`irforge export BENCH --format ir_datasets --out {folder}`")
    spec: dict[str, Any] = json.loads(spec_path.read_text(encoding="utf-8"))
    irds = require("ir_datasets", "export")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import JsonlDocs, JsonlQueries, TrecQrels
    from ir_datasets.util import LocalDownload

    base = name or spec["name"]
    docs = JsonlDocs(LocalDownload(folder / spec["docs"]), doc_cls=IrforgeDoc)
    queries = JsonlQueries(LocalDownload(folder / spec["queries"]), query_cls=IrforgeQuery)
    for split, relative in spec["qrels"].items():
        qrels = TrecQrels(LocalDownload(folder / relative), RELEVANCE_DEFS)
        names = [f"{base}/{split}"] + ([base] if split == spec["main_split"] else [])
        for dataset_name in names:
            if dataset_name not in irds.registry:
                irds.registry.register(dataset_name, Dataset(docs, queries, qrels))
    return base
