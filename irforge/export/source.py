"""What every export reads: the checked corpus, queries, qrels splits and manifest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.beir import require_known_qrels
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError, FormatError, IrforgeError
from irforge.core.records import Doc, Qrel, Query

# query metadata keys holding an instruction, most specific first (docs/export.md)
INSTRUCTION_KEYS = ("instruction", "condition_description")


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote."""

    format: str
    out: Path
    files: list[Path]
    counts: dict[str, int]
    notes: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {"format": self.format, "out": str(self.out),
                "files": [str(p.relative_to(self.out)) for p in self.files],
                "counts": self.counts, "notes": self.notes}


@dataclass(frozen=True)
class ExportSource:
    """A benchmark folder read once and checked: nothing empty, every qrel resolvable."""

    bench: Benchmark
    docs: list[Doc]
    queries: list[Query]
    qrels: dict[str, list[Qrel]]  # split -> qrels
    manifest: Mapping[str, Any]

    @classmethod
    def load(cls, root: Path, split: str | None = None) -> ExportSource:
        bench = Benchmark(root)
        if not bench.root.is_dir():
            raise IrforgeError(f"benchmark folder {root} not found")
        problems: list[Any] = []
        docs = list(bench.corpus(problems.append))
        queries = list(bench.queries(problems.append))
        splits = [split] if split else bench.splits()
        if split and split not in bench.splits():
            raise IrforgeError(f"no qrels split {split!r} in {bench.root / 'qrels'} (found: "
                               f"{', '.join(bench.splits()) or 'none'})")
        qrels = {name: list(bench.qrels(name, problems.append)) for name in splits}
        if problems:
            raise FormatError(problems[0]) if len(problems) == 1 else IrforgeError(
                f"{len(problems)} problems in {root}, first: {problems[0]} "
                f"(run `irforge check {root}` for all of them)")
        if not docs or not queries or not any(qrels.values()):
            raise EmptyResultError(
                f"nothing to export from {root}: {len(docs)} documents, {len(queries)} "
                f"queries, {sum(map(len, qrels.values()))} qrels (build the benchmark first)")
        doc_ids, query_ids = {d.doc_id for d in docs}, {q.query_id for q in queries}
        for name, rows in qrels.items():
            require_known_qrels(bench.qrels_path(name), ((q.query_id, q.doc_id) for q in rows),
                                query_ids, doc_ids, root, "exporting")
        return cls(bench, docs, queries, qrels, bench.manifest())

    @property
    def name(self) -> str:
        return self.bench.root.resolve().name

    def licence(self, given: str | None = None) -> tuple[str, str]:
        """The data licence (SPDX id) and where it was found (:mod:`irforge.export.licence`)."""
        from irforge.export.licence import resolve_licence

        return resolve_licence(given, self.bench.root, self.manifest)

    def counts(self) -> dict[str, int]:
        out = {"docs": len(self.docs), "queries": len(self.queries)}
        out.update({f"qrels/{name}": len(rows) for name, rows in self.qrels.items()})
        return out

    def main_split(self) -> str:
        return "test" if "test" in self.qrels else sorted(self.qrels)[0]


def instruction_of(query: Query) -> str:
    """The instruction of an instruction-following query ('' for plain queries)."""
    for key in INSTRUCTION_KEYS:
        value = query.metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def passage_contents(doc: Doc) -> str:
    """Title and text joined the way BEIR-style models read them."""
    return f"{doc.title}\n{doc.text}" if doc.title else doc.text
