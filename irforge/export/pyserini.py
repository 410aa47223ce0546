"""Pyserini/Anserini input: ``corpus/docs.jsonl`` rows ``{"id", "contents"}`` for
``python -m pyserini.index.lucene --collection JsonCollection``, plus TSV topics and TREC qrels."""

from __future__ import annotations

from pathlib import Path

from irforge.core.jsonl import write_jsonl
from irforge.export import trec
from irforge.export.source import ExportResult, ExportSource, passage_contents


def export(source: ExportSource, out: Path) -> ExportResult:
    trec._check_ids(source)
    corpus = out / "corpus" / "docs.jsonl"
    write_jsonl(corpus, ({"id": doc.doc_id, "contents": passage_contents(doc)}
                         for doc in source.docs))
    files = [corpus, *trec.write_all_topics(source, out)]
    for split, qrels in source.qrels.items():
        path = out / "qrels" / f"{split}.qrels"
        trec.write_trec_qrels(path, qrels)
        files.append(path)
    return ExportResult("pyserini", out, files, source.counts(),
                        [f"index: python -m pyserini.index.lucene --collection JsonCollection "
                         f"--input {out / 'corpus'} --index INDEX_DIR --generator "
                         f"DefaultLuceneDocumentGenerator --storeRaw"])
