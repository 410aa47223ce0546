"""Control items of ``irforge label``: made from the folder's queries, scored per step.

Every strategy and the ensemble are scored on the same controls (``generators/controls.py``);
the ensemble decides the verdict, since it is what becomes qrels. Figures go to
``judge_controls.json`` (entry ``relevance``) and each control's answers to
``relevance/controls.jsonl``; controls never enter judgments.jsonl, failures.jsonl or qrels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.layouts.relevance import LAYOUT
from irforge.core.records import Doc, Qrel, Query
from irforge.generators.control_hook import (
    ByStep,
    Checked,
    ControlReport,
    JudgeSpec,
    Reader,
    report_judge,
)
from irforge.generators.controls import (
    Control,
    ControlSource,
    make_controls,
    relevant_from,
    sources_from_queries,
)
from irforge.generators.intents.config import IntentSpec
from irforge.generators.relevance.ensemble import ENSEMBLE_STEP, ensemble
from irforge.generators.relevance.settings import LabelSettings
from irforge.generators.relevance.steps import Pair
from irforge.prompts.context import doc_context
from irforge.steps.judge_report import control_summary, raise_if_untrusted
from irforge.steps.runner import BuildRunner

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
                  default_intent: str | None, docs: Mapping[str, Doc] | None = None
                  ) -> list[tuple[Control, Pair]]:
    """Each control as the pair the judge sees (same prompt as a real pair of its intent,
    with its passage's title and section when ``docs`` holds it); controls of an intent the
    run does not know are left out."""
    out = []
    for control in controls:
        name = control.intent or default_intent
        if name in intents:
            doc = (docs or {}).get(control.doc_id)
            out.append((control, Pair(control.control_id, control.doc_id, control.query,
                                      control.passage, intents[name],
                                      doc_context(doc) if doc is not None else "")))
    return out


def as_checked(pairs: Sequence[tuple[Control, Pair]]) -> list[Checked]:
    """Each control pair as the judge-control hook takes it; its log row is the control."""
    return [Checked(pair, control.kind, control.expected, control.to_json())
            for control, pair in pairs]


def reader(pairs: Sequence[tuple[Control, Pair]]) -> Reader:
    """A strategy's label or the ensemble's grade of one control as a decision (at least
    half its intent's scale: relevant) and its score."""
    cuts = [relevant_from(pair.intent.relevance.top_label) for _, pair in pairs]

    def read(step: str, i: int, value: Any) -> tuple[int | None, float | None]:
        if value is None:
            return None, None
        if step == ENSEMBLE_STEP:
            return int(value["graded"] >= cuts[i]), float(value["score"])
        return (None if value.label is None else int(value.label >= cuts[i])), value.value

    return read


def ensembled(pairs: Sequence[tuple[Control, Pair]], settings: LabelSettings
              ) -> Callable[[ByStep], ByStep]:
    """The ensemble step of the controls, from their strategies' outcomes: it decides."""
    def derive(checked: ByStep) -> ByStep:
        by_strategy = {step.rpartition(".")[2]: by for step, by in checked.items()}
        rows, _, _ = ensemble([pair for _, pair in pairs], by_strategy, settings, set())
        by_id = {row["query_id"]: row for row in rows}
        return {ENSEMBLE_STEP: {i: by_id.get(control.control_id)
                                for i, (control, _) in enumerate(pairs)}}

    return derive


def report_controls(runner: BuildRunner, report: ControlReport, settings: LabelSettings,
                    made: bool) -> dict[str, Any]:
    """Write the control log and the ``relevance`` entry of ``judge_controls.json``; the
    entry (``made``: some control was mixed in, else why none was)."""
    spec = JudgeSpec(JUDGE, ENSEMBLE_STEP, (settings.split,), LAYOUT.relative("controls"))
    entry = report.entry(spec, () if made else [
        "no query names a real source passage (seed_doc_id, source_doc, gold_doc_id or a "
        "non-generated positive_doc_id) to make controls from" if settings.controls
        else "controls were switched off"])
    report_judge(runner, spec, entry, report.rows)
    return entry
