"""TREC run files: ``query_id Q0 doc_id rank score tag``, one line per retrieved document."""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from pathlib import Path

from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import atomic_open, iter_lines
from irforge.core.records import Run


def strictly_decreasing(scores: list[float]) -> list[float]:
    """Scores in rank order made strictly decreasing: a score that ties (or exceeds) the one
    above it becomes the next float below that one, so every tool that sorts by score alone
    (ranx, ir_measures, pytrec_eval) sees the same order as trec_eval's tie rule."""
    out: list[float] = []
    for score in scores:
        if out and not score < out[-1]:
            score = math.nextafter(out[-1], -math.inf)
        out.append(score)
    return out


def ranked_ids(docs: Mapping[str, float], k: int | None = None) -> list[str]:
    """Doc ids best first: score descending, ties by doc id descending (trec_eval's rule)."""
    ordered = sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return [doc_id for doc_id, _ in (ordered if k is None else ordered[:k])]


def write_trec_run(path: Path, run: Run, tag: str | None = None) -> int:
    """Write ``run`` best first per query; ties are broken explicitly (trec_eval's order, doc
    id descending, with scores nudged down by one float step each: :func:`strictly_decreasing`),
    so the file ranks the same in every tool. Returns the line count."""
    tag = re.sub(r"\s+", "_", tag or run.name) or "irforge"
    bad = next((i for q, docs in run.scores.items() for i in (q, *docs) if _blank(i)), None)
    if bad is not None:
        raise FormatError(Problem(Path(path), f"id {bad!r} is empty or holds whitespace: a TREC "
                                  "run line cannot hold it", hint="rename the query / document "
                                  "ids (irforge check reports them)"))
    count = 0
    with atomic_open(Path(path)) as handle:
        for query_id in run.scores:
            docs = run.scores[query_id]
            order = ranked_ids(docs)
            scores = strictly_decreasing([float(docs[doc_id]) for doc_id in order])
            for rank, (doc_id, score) in enumerate(zip(order, scores, strict=True), start=1):
                handle.write(f"{query_id} Q0 {doc_id} {rank} {score!r} {tag}\n")
                count += 1
    return count


def _blank(identifier: str) -> bool:
    return not identifier or any(c.isspace() for c in identifier)


def read_trec_run(path: Path, corpus_ids: Collection[str] | None = None,
                  name: str | None = None) -> Run:
    """Read a TREC run named ``name`` (default: its tag column); with ``corpus_ids``, a document
    not in the corpus is an error that names the file and line. A repeated (query, document)
    pair or a score that is not finite is an error too (either would change the score)."""
    path = Path(path)
    scores: dict[str, dict[str, float]] = {}
    first_line: dict[tuple[str, str], int] = {}
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
        if not math.isfinite(score):
            raise FormatError(Problem(path, f"score {score_text!r} is not finite", line=number,
                                      field="score", hint="give every document a real number"))
        if (query_id, doc_id) in first_line:
            repeats = _count_repeats(path)
            raise FormatError(Problem(
                path, f"query {query_id!r} lists document {doc_id!r} again (first on line "
                f"{first_line[query_id, doc_id]}); {repeats} repeated line(s) in the file",
                line=number, field="doc_id", hint="keep one line per query and document"))
        first_line[query_id, doc_id] = number
        if corpus_ids is not None and doc_id not in corpus_ids:
            raise FormatError(Problem(path, f"document {doc_id!r} is not in the corpus",
                                      line=number, field="doc_id",
                                      hint="evaluate runs made on this benchmark's corpus"))
        scores.setdefault(query_id, {})[doc_id] = score
    return Run(name=name or tag, scores=scores)


def _count_repeats(path: Path) -> int:
    """How many lines repeat an earlier (query, document) pair (for the error message)."""
    seen: set[tuple[str, str]] = set()
    repeats = 0
    for _, line in iter_lines(path):
        cells = line.split()
        if len(cells) == 6:
            key = (cells[0], cells[2])
            repeats += key in seen
            seen.add(key)
    return repeats
