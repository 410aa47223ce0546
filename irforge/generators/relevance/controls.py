"""Control items of ``irforge label``: made from the folder's queries, scored per step.

Every strategy and the ensemble are scored on the same controls (``generators/controls.py``);
the ensemble decides the verdict, since it is what becomes qrels. Figures go to
``judge_controls.json`` (entry ``relevance``) and each control's answers to
``relevance/controls.jsonl``; controls never enter judgments.jsonl, failures.jsonl or qrels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.jsonl import write_jsonl
from irforge.core.layouts.relevance import LAYOUT
from irforge.core.records import Doc, Qrel, Query
from irforge.core.trust import record_judge
from irforge.generators.controls import (
    Control,
    ControlSource,
    make_controls,
    relevant_from,
    sources_from_queries,
)
from irforge.generators.intents.config import IntentSpec
from irforge.generators.relevance import strategies as strat
from irforge.generators.relevance.steps import STEP, Pair
from irforge.steps.judge_report import control_summary, raise_if_untrusted
from irforge.validators.control_stats import StepFigures, judge_status, step_figures

__all__ = ["control_summary", "raise_if_untrusted"]  # the verbs print and raise with these

JUDGE = "relevance"


def folder_controls(bench: Benchmark, seed: int = 0, limit: int = 50) -> list[Control]:
    """Controls from the folder's queries that name a real source passage."""
    docs = list(bench.corpus())
    sources = sources_from_queries(list(bench.queries()), {doc.doc_id: doc for doc in docs})
    return make_controls(sources, docs, seed=seed, limit=limit) if sources else []


def verified_controls(source: str, intents: Mapping[str, IntentSpec],
                      default_intent: str | None, seed: int = 0, limit: int = 50
                      ) -> list[Control]:
    """Controls from hand-verified queries (``controls_from``): each query of a known intent
    with a document judged relevant (grade >= 2) is a source, over that set's documents."""
    docs, queries, qrels = verified_set(source)
    relevant = {qrel.query_id: qrel.doc_id for qrel in qrels if qrel.relevance >= 2}
    sources = []
    for query in queries:
        intent = query.metadata.get("intent") or default_intent
        if intent in intents and query.query_id in relevant:
            sources.append(ControlSource(query.query_id, query.text, relevant[query.query_id],
                                         intent, None, query.metadata.get("answer")))
    return make_controls(sources, docs, seed=seed, limit=limit)


def verified_set(source: str) -> tuple[list[Doc], list[Query], list[Qrel]]:
    """The documents, queries and qrels of ``source``: ``sample`` (the shipped sample
    queries) or a benchmark folder; a folder missing one of them is a usage error."""
    if source == "sample":
        from irforge.data.sample import sample_docs, sample_qrels, sample_queries

        return sample_docs(), sample_queries(), sample_qrels()
    bench = Benchmark(Path(source))
    missing = [path.name for path in (bench.corpus_path, bench.queries_path,
                                      bench.qrels_path()) if not path.is_file()]
    if missing:
        raise IrforgeError(f"controls_from {source}: {', '.join(missing)} not found (give a "
                           "benchmark folder with corpus.jsonl, queries.jsonl and "
                           "qrels/test.tsv, or 'sample')")
    return list(bench.corpus()), list(bench.queries()), list(bench.qrels())


def control_pairs(controls: Sequence[Control], intents: Mapping[str, IntentSpec],
                  default_intent: str | None) -> list[tuple[Control, Pair]]:
    """Each control as the pair the judge sees (same prompt as a real pair of its intent);
    controls of an intent the run does not know are left out."""
    out = []
    for control in controls:
        name = control.intent or default_intent
        if name in intents:
            out.append((control, Pair(control.control_id, control.doc_id, control.query,
                                      control.passage, intents[name])))
    return out


def score_controls(pairs: Sequence[tuple[Control, Pair]],
                   by_strategy: Mapping[str, Mapping[int, strat.Outcome]],
                   ensemble_rows: Sequence[Mapping[str, Any]], ensemble_step: str
                   ) -> tuple[list[StepFigures], list[dict[str, Any]]]:
    """Figures per strategy and for the ensemble, and one log row per control."""
    expected = [control.expected for control, _ in pairs]
    kinds = [control.kind for control, _ in pairs]
    cuts = [relevant_from(pair.intent.relevance.top_label) for _, pair in pairs]
    figures = []
    rows = [{**control.to_json(), "labels": {}} for control, _ in pairs]
    for name, outcomes in by_strategy.items():
        asked = [i for i in range(len(pairs)) if i in outcomes]
        decided: list[int | None] = []
        scores: list[float | None] = []
        for i in asked:
            outcome = outcomes[i]
            decided.append(None if outcome.label is None else int(outcome.label >= cuts[i]))
            scores.append(outcome.value)
            rows[i]["labels"][name] = outcome.value
        if asked:
            figures.append(step_figures(f"{STEP}.{name}", [expected[i] for i in asked],
                                        decided, scores, [kinds[i] for i in asked]))
    by_id = {row["query_id"]: row for row in ensemble_rows}
    decided, scores = [], []
    for i, (control, _) in enumerate(pairs):
        row = by_id.get(control.control_id)
        decided.append(None if row is None else int(row["graded"] >= cuts[i]))
        scores.append(None if row is None else float(row["score"]))
        rows[i]["labels"]["ensemble"] = scores[-1]
    figures.append(step_figures(ensemble_step, expected, decided, scores, kinds))
    return figures, rows


def judge_entry(figures: Sequence[StepFigures], deciding: str, split: str, model: str,
                demo_grade: bool, controls_file: str) -> dict[str, Any]:
    """The ``judge_controls.json`` entry: status from the deciding step, every step's figures."""
    decider = next((f for f in figures if f.step == deciding), None)
    status = judge_status(decider) if decider is not None else "untested"
    reasons = list(decider.reasons) if decider is not None else ["no control was labeled"]
    return {"status": status, "trusted": status == "trusted", "reasons": reasons,
            "deciding_step": deciding, "qrels_splits": [split], "model": model,
            "demo_grade": demo_grade, "controls_file": controls_file,
            "lines": [f.line() for f in figures],
            "steps": {f.step: f.to_json() for f in figures}}


def record_controls(bench: Benchmark, entry: Mapping[str, Any],
                    rows: Sequence[Mapping[str, Any]]) -> None:
    """Write the control log and the folder's ``judge_controls.json`` entry."""
    write_jsonl(LAYOUT.path(bench.root, "controls"), rows)
    record_judge(bench.root, JUDGE, entry)
