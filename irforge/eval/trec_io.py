"""TREC run files: ``query_id Q0 doc_id rank score tag``, one line per retrieved document."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from irforge.errors import FormatError, Problem
from irforge.jsonl import atomic_open, iter_lines
from irforge.records import Run


def write_trec_run(path: Path, run: Run, tag: str | None = None) -> int:
    """Write ``run`` best first per query (trec_eval tie order); returns the line count."""
    from irforge.eval.metrics.ranks import ranked_ids

    tag = (tag or run.name).replace(" ", "_") or "irforge"
    count = 0
    with atomic_open(Path(path)) as handle:
        for query_id in run.scores:
            docs = run.scores[query_id]
            for rank, doc_id in enumerate(ranked_ids(docs), start=1):
                handle.write(f"{query_id} Q0 {doc_id} {rank} {docs[doc_id]!r} {tag}\n")
                count += 1
    return count


def read_trec_run(path: Path, corpus_ids: Collection[str] | None = None,
                  name: str | None = None) -> Run:
    """Read a TREC run named ``name`` (default: its tag column); with ``corpus_ids``, a document
    not in the corpus is an error that names the file and line."""
    path = Path(path)
    scores: dict[str, dict[str, float]] = {}
    tag = path.stem
    for number, line in iter_lines(path):
        cells = line.split()
        if len(cells) != 6:
            raise FormatError(Problem(path, f"expected 6 columns, got {len(cells)}", line=number,
                                      hint="TREC runs read: query_id Q0 doc_id rank score tag"))
        query_id, _, doc_id, _, score_text, tag = cells
        try:
            score = float(score_text)
        except ValueError:
            raise FormatError(Problem(path, f"score {score_text!r} is not a number",
                                      line=number, field="score")) from None
        if corpus_ids is not None and doc_id not in corpus_ids:
            raise FormatError(Problem(path, f"document {doc_id!r} is not in the corpus",
                                      line=number, field="doc_id",
                                      hint="evaluate runs made on this benchmark's corpus"))
        scores.setdefault(query_id, {})[doc_id] = score
    return Run(name=name or tag, scores=scores)
