"""``evaluate(qrels, run, ["ndcg@10", "map"])``: the trec measures over pytrec_eval-style dicts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

import numpy as np

from irforge.core.errors import IrforgeError
from irforge.core.records import Run
from irforge.eval.metrics.ranking import QrelsDict, RunDict, iter_blocks
from irforge.eval.metrics.registry import Measure, labelled_metrics

MissingQueries = Literal["zero", "skip"]
DEFAULT_MISSING: MissingQueries = "skip"
"""pytrec_eval's convention: a judged query the run does not list is left out of the mean."""


class EvaluationInputError(IrforgeError, ValueError):
    """Qrels or run that cannot be evaluated (empty qrels, bad relevance level...)."""


def _scores_of(run: RunDict | Run) -> RunDict:
    return run.scores if isinstance(run, Run) else run


def evaluate_per_query(qrels: QrelsDict, run: RunDict | Run, metrics: Iterable[str | Measure],
                       relevance_level: int = 1, missing: MissingQueries = DEFAULT_MISSING,
                       ) -> dict[str, dict[str, float]]:
    """Per-query values ``{query_id: {metric as asked: value}}`` for the queries in ``qrels``.

    ``missing="skip"`` (the default, as pytrec_eval) leaves out queries of the qrels that the
    run lacks; ``"zero"`` scores them 0 (trec_eval ``-c``). Run queries without qrels, and
    queries whose qrels are empty, are ignored (as trec_eval does).
    """
    labels = labelled_metrics(metrics)
    measures = list(dict.fromkeys(labels.values()))
    scores = _scores_of(run)
    judged = [q for q, grades in qrels.items() if grades]
    if not judged:
        raise EvaluationInputError("the qrels are empty: there is nothing to evaluate against "
                                   "(check the qrels file and split)")
    if relevance_level < 1:
        raise EvaluationInputError(f"relevance_level must be >= 1, got {relevance_level}")
    if missing not in ("zero", "skip"):
        raise EvaluationInputError(f"missing must be 'zero' or 'skip', got {missing!r}")
    query_ids = [q for q in judged if missing == "zero" or q in scores]
    out: dict[str, dict[str, float]] = {query_id: {} for query_id in query_ids}
    for block in iter_blocks(qrels, scores, query_ids, relevance_level):
        computed = {measure: measure.compute(block).tolist() for measure in measures}
        columns = [(label, computed[measure]) for label, measure in labels.items()]
        for row, query_id in enumerate(block.query_ids):
            values = out[query_id]
            for name, column in columns:
                values[name] = column[row]
    return out


def mean_scores(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Average per-query values into one number per metric (arithmetic mean over queries)."""
    if not per_query:
        return {}
    names = list(next(iter(per_query.values())))
    return {name: float(np.mean([values[name] for values in per_query.values()]))
            for name in names}


def evaluate(qrels: QrelsDict, run: RunDict | Run, metrics: Iterable[str | Measure],
             per_query: bool = False, relevance_level: int = 1,
             missing: MissingQueries = DEFAULT_MISSING):
    """Means per metric, or with ``per_query=True`` the ``{query_id: {metric: value}}`` table.

    Inputs are pytrec_eval-style dicts (``{qid: {docid: grade}}``, ``{qid: {docid: score}}``)
    or a :class:`~irforge.core.records.Run`; metric names are parsed once (``"ndcg@10"``,
    ``"P@5"``, pytrec_eval's ``"ndcg_cut.10"`` / ``"P.5,10"``, ``"map"``, ``"recip_rank"``) and
    results are keyed by the name as asked. Judged queries the run lacks are skipped as
    pytrec_eval does; ``missing="zero"`` counts them 0 (trec_eval ``-c``).
    """
    table = evaluate_per_query(qrels, run, metrics, relevance_level, missing)
    return table if per_query else mean_scores(table)
