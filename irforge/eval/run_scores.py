"""Score whole runs with one metric against qrels (the ranking audits compare them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from irforge.core.records import Run


def score_runs(runs: Sequence[Run], qrels: Mapping[str, Mapping[str, int]], metric: str,
               query_ids: set[str] | None = None) -> dict[str, float]:
    """Mean ``metric`` per run over the judged queries (or a subset); a missing query scores 0."""
    from irforge.eval import evaluate

    kept = {qid: {doc: int(rel) for doc, rel in docs.items()} for qid, docs in qrels.items()
            if query_ids is None or qid in query_ids}
    if not kept:
        raise ValueError("no judged query left to score; check the qrels and the query subset")
    scores = {}
    for run in runs:
        restricted = {qid: dict(docs) for qid, docs in run.scores.items() if qid in kept}
        # a judged query the run misses scores 0
        means = evaluate(kept, restricted, [metric], missing="zero")
        scores[run.name] = float(next(iter(means.values())))
    return scores
