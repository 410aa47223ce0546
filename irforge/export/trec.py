"""TREC format: ``qrels/<split>.qrels`` (``qid 0 docid rel``, what trec_eval, pytrec_eval and
ranx read), ``topics.tsv`` (``qid<TAB>text``) and the runs the benchmark's last ``irforge eval``
wrote (those its ``eval/results.json`` lists).

Runs are rewritten with their ties broken explicitly (scores strictly decreasing in trec_eval's
order), so ranx, pytrec_eval and ir_measures score them alike. An instructions (InfoSearch)
folder also gets ``topics.changed.tsv`` and ``topics.reversed.tsv``: the instructed and
reversed texts of the same query ids, which its ``<system>.changed`` / ``.reversed`` runs used.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from irforge.core.jsonl import atomic_open
from irforge.core.records import Qrel, Query
from irforge.core.trec import read_trec_run, write_trec_run
from irforge.export.source import ExportResult, ExportSource


def write_trec_qrels(path: Path, qrels: Iterable[Qrel]) -> int:
    """Four whitespace-separated columns per line: query id, iteration 0, doc id, grade."""
    count = 0
    with atomic_open(path) as handle:
        for qrel in qrels:
            handle.write(f"{qrel.query_id} 0 {qrel.doc_id} {int(qrel.relevance)}\n")
            count += 1
    return count


def write_topics(path: Path, queries: Iterable[Query]) -> None:
    """``query_id<TAB>text`` per line (newlines and tabs in the text become spaces)."""
    with atomic_open(path) as handle:
        for query in queries:
            handle.write(f"{query.query_id}\t{' '.join(query.text.split())}\n")


def mode_queries(source: ExportSource) -> dict[str, list[Query]]:
    """The instructed and reversed queries of an instructions folder, by mode (else none)."""
    from irforge.core.beir import read_queries
    from irforge.eval.infosearch_eval import MODE_QUERY_FILES

    root = source.bench.root
    return {mode: list(read_queries(root / name)) for mode, name in MODE_QUERY_FILES.items()
            if (root / name).is_file()}


def write_all_topics(source: ExportSource, out: Path) -> list[Path]:
    """``topics.tsv``, plus ``topics.<mode>.tsv`` per instruction mode the folder has."""
    topics = out / "topics.tsv"
    write_topics(topics, source.queries)
    files = [topics]
    for mode, queries in mode_queries(source).items():
        path = out / f"topics.{mode}.tsv"
        write_topics(path, queries)
        files.append(path)
    return files


def _check_ids(source: ExportSource) -> None:
    """TREC files split on whitespace: ids with spaces would shift the columns."""
    from irforge.core.errors import IrforgeError

    bad = [d.doc_id for d in source.docs if len(d.doc_id.split()) != 1]
    bad += [q.query_id for q in source.queries if len(q.query_id.split()) != 1]
    if bad:
        raise IrforgeError(f"ids with whitespace cannot be written in TREC format: "
                           f"{bad[:3]!r} (rename them)")


def export(source: ExportSource, out: Path) -> ExportResult:
    _check_ids(source)
    files, counts = [], source.counts()
    for split, qrels in source.qrels.items():
        path = out / "qrels" / f"{split}.qrels"
        write_trec_qrels(path, qrels)
        files.append(path)
    files += write_all_topics(source, out)
    notes = []
    from irforge.eval.outputs import owned_runs

    runs, stale = owned_runs(source.bench.root / "eval")
    doc_ids = {doc.doc_id for doc in source.docs}
    for run in runs:
        target = out / "runs" / run.name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_trec_run(target, read_trec_run(run, doc_ids))
        files.append(target)
    counts["runs"] = len(runs)
    if stale:
        notes.append(f"left out {', '.join(p.name for p in stale)}: eval/results.json does "
                     "not list them (runs of an earlier evaluation)")
    if not runs:
        notes.append("no runs in eval/results.json: run `irforge eval` first to export runs too")
    return ExportResult("trec", out, files, counts, notes)
