"""Re-runs merge with the folder: a build for some types keeps the queries of the others.

A query already in the folder whose id the new run did not plan stays, with its gold passages,
its hypothetical negative, its qrels rows and its negation labels; its passage group is
treated as sampled, so no passage of it becomes a distractor.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl
from irforge.core.records import Doc, Qrel, Query
from irforge.generators.logical.labels import NegationLabel, labels_path


@dataclass(frozen=True)
class Previous:
    """What an earlier build left that the current run keeps."""

    queries: tuple[Query, ...] = ()
    qrels: tuple[Qrel, ...] = ()
    docs: tuple[Doc, ...] = ()
    labels: tuple[NegationLabel, ...] = ()
    groups: set[str] = field(default_factory=set)


def read_previous(bench: Benchmark, replanned: Collection[str]) -> Previous:
    """The queries of ``bench`` whose ids are not in ``replanned``, with what they need."""
    if not bench.queries_path.is_file():
        return Previous()
    queries = tuple(q for q in bench.queries() if q.query_id not in replanned)
    if not queries:
        return Previous()
    ids = {q.query_id for q in queries}
    qrels = tuple(r for r in bench.qrels() if r.query_id in ids) \
        if bench.qrels_path().is_file() else ()
    wanted = {r.doc_id for r in qrels} | {f"{qid}-hyp" for qid in ids}
    docs = tuple(d for d in bench.corpus() if d.doc_id in wanted) \
        if bench.corpus_path.is_file() else ()
    path = labels_path(bench.root)
    labels = tuple(NegationLabel(str(row["query_id"]), str(row["doc_id"]), int(row["violates"]),
                                 str(row.get("source", "")),
                                 tuple(dict(t) for t in row.get("negated", ())))
                   for _, row in (iter_jsonl(path) if path.is_file() else ())
                   if str(row["query_id"]) in ids)
    groups = {str(q.metadata["group"]) for q in queries if q.metadata.get("group")}
    return Previous(queries, qrels, docs, labels, groups)
