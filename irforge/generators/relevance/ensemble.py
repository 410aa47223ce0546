"""The ensemble of the strategies' labels: per pair a score, a qrel and a consistency flag
(DisastIR 3.6, appendix D), and the merge of ``relevance/ensemble.jsonl`` rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl
from irforge.core.records import Failure, Qrel
from irforge.generators.relevance import steps as relsteps
from irforge.generators.relevance.aggregate import (
    Binarization,
    get_ensemble,
    is_flagged,
    round_half_up,
)
from irforge.generators.relevance.steps import STEP

if TYPE_CHECKING:
    from irforge.generators.relevance import strategies as strat
    from irforge.generators.relevance.settings import LabelSettings

ENSEMBLE_STEP = f"{STEP}.ensemble"
# ensembles that count votes use the decoded (argmax) labels; the others the expected grades
DISCRETE_ENSEMBLES = ("mode", "majority")


def merge_rows(path: Path, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Earlier ensemble rows for pairs not labeled this time, then this run's rows."""
    fresh = {(row["query_id"], row["doc_id"]) for row in rows}
    old = [row for _, row in iter_jsonl(path)] if path.exists() else []
    return [row for row in old if (row.get("query_id"), row.get("doc_id")) not in fresh] + \
        list(rows)


def generated_positives(bench: Benchmark) -> set[tuple[str, str]]:
    """(query, passage) pairs where the passage is the query's own generated positive."""
    out = set()
    for query in bench.queries():
        positive = query.metadata.get("positive_doc_id")
        if isinstance(positive, str):
            out.add((query.query_id, positive))
    return out


def ensemble(pairs: Sequence[relsteps.Pair], by_strategy: Mapping[str, Mapping[int, strat.Outcome]],
             settings: LabelSettings, positives: set[tuple[str, str]],
             ) -> tuple[list[dict[str, Any]], list[Qrel], list[Failure]]:
    """Per pair: the ensemble score, the qrel label, and the consistency flag."""
    combine = get_ensemble(settings.ensemble)
    binarize = Binarization(settings.binarization)
    rows: list[dict[str, Any]] = []
    qrels: list[Qrel] = []
    failures: list[Failure] = []
    discrete = settings.ensemble in DISCRETE_ENSEMBLES
    for i, pair in enumerate(pairs):
        labels = {name: outcomes[i].label if discrete else outcomes[i].value
                  for name, outcomes in by_strategy.items()
                  if i in outcomes and outcomes[i].label is not None}
        score = combine(list(labels.values()))
        if score is None:
            allowed = pair.intent.relevance.strategies
            if not any(name in allowed for name in settings.strategies):
                reason = (f"none of the chosen strategies applies to intent "
                          f"{pair.intent.name!r} (it allows {allowed})")
            elif not labels:
                reason = "no strategy produced a label"
            else:
                reason = f"no {settings.ensemble} among labels {labels}"
            failures.append(Failure(ENSEMBLE_STEP, pair.item_id, reason))
            continue
        graded = round_half_up(score)
        positive = (pair.query_id, pair.doc_id) in positives
        top = pair.intent.relevance.top_label
        qrel = binarize.label(score)
        qrels.append(Qrel(pair.query_id, pair.doc_id, qrel))
        rows.append({"query_id": pair.query_id, "doc_id": pair.doc_id,
                     "intent": pair.intent.name, "labels": labels, "method": settings.ensemble,
                     "score": score, "graded": graded, "qrel": qrel, "top_label": top,
                     "positive": positive, "flagged": positive and is_flagged(graded, top)})
    return rows, qrels, failures
