"""``irforge label`` orchestration: pairs -> the three strategies (``strategies.py``, steps in
``steps.py``) -> ensemble -> judgments, qrels, flags (DisastIR 3.6, appendix C and D).

Pairs come from pair/pool files plus, by default, each generated query's own positive passage.
Every strategy's label and raw output go to ``judgments.jsonl``; failures to
``failures.jsonl``; the ensemble to ``qrels/<split>.tsv`` and ``relevance/ensemble.jsonl``;
generated passages the ensemble does not give the top label to, to ``relevance/flagged.jsonl``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError, IrforgeError, Problem
from irforge.core.jsonl import iter_jsonl, write_jsonl
from irforge.core.records import Failure, Judgment, Qrel
from irforge.generators.intents.config import STRATEGY_NAMES, IntentSpec
from irforge.generators.relevance import controls as rcontrols
from irforge.generators.relevance import steps as relsteps
from irforge.generators.relevance import strategies as strat
from irforge.generators.relevance.aggregate import (
    Binarization,
    get_ensemble,
    is_flagged,
    round_half_up,
)
from irforge.generators.relevance.layout import LAYOUT
from irforge.generators.relevance.pairs import read_pairs
from irforge.generators.relevance.probabilities import RecordingEngine
from irforge.generators.relevance.steps import STEP
from irforge.generators.run_summary import RunSummary, estimate_calls
from irforge.steps import StepYield, reason_key
from irforge.validators.controls import Control, mix

ENSEMBLE_STEP = f"{STEP}.ensemble"
# ensembles that count votes use the decoded (argmax) labels; the others the expected grades
DISCRETE_ENSEMBLES = ("mode", "majority")


@dataclass(frozen=True)
class LabelSettings:
    """How to label: which strategies, how to ensemble, how to binarize qrels."""

    strategies: tuple[str, ...] = STRATEGY_NAMES
    ensemble: str = "mean"
    binarization: str = "graded"
    split: str = "test"
    default_intent: str | None = None
    include_positives: bool = True
    controls: bool = True  # mix in control items (generators/relevance/controls.py)
    control_limit: int = 50  # sources (queries) controls are made from, at most
    seed: int = 0  # which sources, which negatives, and the shuffled order

    def __post_init__(self) -> None:
        unknown = [name for name in self.strategies if name not in strat.STRATEGIES]
        if unknown or not self.strategies:
            raise IrforgeError(f"unknown or no strategies {unknown}; choose from "
                               f"{list(strat.STRATEGIES)}")
        get_ensemble(self.ensemble)
        Binarization(self.binarization)


LabelReport = RunSummary  # what label_benchmark returns


def collect_pairs(bench: Benchmark, pair_files: Sequence[Path],
                  intents: Mapping[str, IntentSpec],
                  settings: LabelSettings) -> list[relsteps.Pair]:
    """Pairs from the files plus each query's positive passage, deduplicated, with intents."""
    queries = {query.query_id: query for query in bench.queries()}
    docs = {doc.doc_id: doc for doc in bench.corpus()}
    wanted: dict[tuple[str, str], tuple[Path | None, int | None]] = {}
    for path in pair_files:
        for ref in read_pairs(path):
            for value, kind, known in ((ref.query_id, "query_id", queries),
                                       (ref.doc_id, "doc_id", docs)):
                if value not in known:
                    raise FormatError(Problem(ref.path, f"unknown {kind} {value!r}",
                                              line=ref.line, field=kind,
                                              hint=f"it is not in {bench.root}"))
            wanted.setdefault((ref.query_id, ref.doc_id), (ref.path, ref.line))
    if settings.include_positives:
        for query in queries.values():
            positive = query.metadata.get("positive_doc_id")
            if isinstance(positive, str) and positive in docs:
                wanted.setdefault((query.query_id, positive), (None, None))
    pairs = []
    for (query_id, doc_id), (path, line) in wanted.items():
        query = queries[query_id]
        name = query.metadata.get("intent") or settings.default_intent
        if name not in intents:
            where = path or bench.queries_path
            raise FormatError(Problem(where, f"query {query_id!r} has intent {name!r}, which "
                                      f"is not defined", line=line, field="intent",
                                      hint=f"pass --intent with one of {sorted(intents)}, or "
                                      "define it with --intents-file"))
        pairs.append(relsteps.Pair(query_id, doc_id, query.text, docs[doc_id].text, intents[name]))
    return pairs


def estimate_labeling(engine: Any, pairs: Sequence[relsteps.Pair],
                      strategies: Sequence[str]) -> dict[str, Any]:
    """Tokens and dollars before labeling, phase by phase, from the rendered prompts.

    Phase-one and criterion prompts are rendered exactly; later phases, whose inputs depend on
    earlier answers, are rendered with placeholder answers (same length to a few tokens).
    """
    calls: dict[tuple[str, Any], list[dict[str, Any]]] = {}

    def add(template: str, model: Any, item: dict[str, Any]) -> None:
        calls.setdefault((template, model), []).append(item)

    criteria_seen: set[tuple[str, str, str]] = set()
    for pair in pairs:
        spec = pair.intent.relevance
        base = relsteps.base_variables(pair)
        chosen = [name for name in strategies if name in spec.strategies]
        if "zero_shot" in chosen:
            add(spec.zero_shot_template, relsteps.score_model("final_score", spec.top_label),
                {**base, "goal": spec.goal, "scale": list(spec.scale)})
        names: list[str] = []
        if "cot" in chosen:
            names += list(spec.cot_criteria)
            add(relsteps.PRESENCE, relsteps.Presence, {**base, "presence_question":
                                                 spec.presence_question})
            add(relsteps.COT_FINAL, relsteps.cot_final_model("Yes"),
                {**base, "goal": spec.goal, "has_answer": "Yes", "low": 2, "high": 3,
                 "low_label": spec.scale[2], "high_label": spec.scale[3],
                 "criteria_scores": ", ".join(f"{n} 0" for n in spec.cot_criteria)})
        if "multi_dim" in chosen:
            names += list(spec.criteria)
            add(relsteps.MULTI_FINAL, relsteps.score_model("final_relevance_score", spec.top_label),
                {**base, "goal": spec.goal, "scale": list(spec.scale),
                 "criteria_scores": ", ".join(f"{n} 0" for n in spec.criteria)})
        for name in names:
            if (pair.query_id, pair.doc_id, name) in criteria_seen:
                continue  # cot and multi_dim share criterion calls through the cache
            criteria_seen.add((pair.query_id, pair.doc_id, name))
            add(relsteps.CRITERION, relsteps.CriterionScore,
                {**base, "criterion_name": name, "criterion_definition": spec.criteria[name]})
    return estimate_calls(engine, calls, by_template=True)


def _judgment(pair: relsteps.Pair, outcome: strat.Outcome) -> Judgment:
    """One strategy's label: the expected grade where log-probs gave one, else the argmax."""
    value = outcome.value
    assert value is not None and outcome.label is not None
    return Judgment(query_id=pair.query_id, doc_id=pair.doc_id, label=float(value),
                    source="llm", prompt_id=outcome.prompt_id, model=outcome.model,
                    raw_output=json.dumps(outcome.raws, ensure_ascii=False),
                    task="relevance", metadata={
                        "strategy": outcome.strategy, "intent": pair.intent.name,
                        "scale_max": pair.intent.relevance.top_label,
                        "phases": outcome.parsed, "demo_grade": outcome.demo_grade,
                        "argmax_label": outcome.label,
                        "label_from": "logprobs" if outcome.expected is not None
                        else "argmax"})


def run_strategies(engine: Any, pairs: Sequence[relsteps.Pair],
                   strategies: Sequence[str]) -> dict[str, dict[int, strat.Outcome]]:
    """Every chosen strategy on the pairs whose intent allows it: {strategy: {pair index: ...}}."""
    engine = engine if isinstance(engine, RecordingEngine) else RecordingEngine(engine)
    out: dict[str, dict[int, strat.Outcome]] = {}
    for name in strategies:
        indexes = [i for i, pair in enumerate(pairs) if name in pair.intent.relevance.strategies]
        outcomes = strat.STRATEGIES[name](engine, [pairs[i] for i in indexes], f"{STEP}.{name}")
        out[name] = dict(zip(indexes, outcomes, strict=True))
    return out


def _run_mixed(engine: Any, pairs: Sequence[relsteps.Pair],
               checks: Sequence[relsteps.Pair], settings: LabelSettings,
               ) -> tuple[dict[str, dict[int, strat.Outcome]], dict[str, dict[int, strat.Outcome]]]:
    """Real pairs and control pairs in one shuffled run; outcomes split back by kind."""
    order = mix(len(pairs), len(checks), settings.seed)
    mixed = [checks[i] if is_control else pairs[i] for is_control, i in order]
    outcomes = run_strategies(engine, mixed, settings.strategies)
    def split(want: bool) -> dict[str, dict[int, strat.Outcome]]:
        return {name: dict(sorted(((order[pos][1], o) for pos, o in by.items()
                                   if order[pos][0] == want), key=lambda kv: kv[0]))
                for name, by in outcomes.items()}

    return split(False), split(True)


def label_benchmark(bench: Benchmark, engine: Any, pair_files: Sequence[Path],
                    intents: Mapping[str, IntentSpec], settings: LabelSettings,
                    dry_run: bool = False, extra_controls: Sequence[Control] = ()
                    ) -> LabelReport:
    """Label the pairs with every strategy, ensemble, write judgments, qrels and flags.

    Control items (``extra_controls`` plus, with ``settings.controls``, those made from the
    folder's queries) are labeled in the same shuffled run and scored apart: figures in
    ``report.counts["judge_controls"]`` and ``judge_controls.json``, never in qrels.
    """
    pairs = collect_pairs(bench, pair_files, intents, settings)
    made = list(extra_controls) + (rcontrols.folder_controls(bench, settings.seed,
                                                              settings.control_limit)
                                   if settings.controls and pairs else [])
    checks = rcontrols.control_pairs(made, intents, settings.default_intent)
    report = LabelReport(counts={"pairs": len(pairs), "judgments_written": 0,
                                 "judgments_reused": 0, "failures": 0, "qrels": 0,
                                 "flagged": 0, "positives_checked": 0,
                                 "controls": len(checks)})
    report.estimate = estimate_labeling(engine, [*pairs, *(p for _, p in checks)],
                                        settings.strategies)
    if dry_run or not pairs:
        return report
    by_strategy, by_control = _run_mixed(engine, pairs, [p for _, p in checks], settings)
    seen = {(j.query_id, j.doc_id, j.metadata.get("strategy"), j.model)
            for j in bench.judgments() if j.source == "llm" and j.task == "relevance"}
    judgments: list[Judgment] = []
    failures: list[Failure] = []
    counts = report.counts
    for name, outcomes in by_strategy.items():
        step_yield = StepYield(f"{STEP}.{name}", attempted=len(outcomes))
        for i, outcome in outcomes.items():
            if outcome.label is None:
                assert outcome.failure is not None
                failures.append(outcome.failure)
                step_yield.rejected[reason_key(outcome.failure.reason)] += 1
                continue
            step_yield.accepted += 1
            key = (pairs[i].query_id, pairs[i].doc_id, name, outcome.model)
            if key in seen:
                counts["judgments_reused"] += 1
                continue
            judgments.append(_judgment(pairs[i], outcome))
        report.yields.add(step_yield)
    rows, qrels, more = ensemble(pairs, by_strategy, settings, _positives(bench))
    failures.extend(more)
    report.yields.add(StepYield(ENSEMBLE_STEP, len(pairs), len(qrels),
                                Counter(reason_key(f"rejected: {f.reason}") for f in more)))
    counts["judgments_written"] = bench.add_judgments(judgments)
    counts["failures"] = bench.add_failures(failures)
    bench.retire_failures((f"{STEP}.{name}", pairs[i].item_id)
                          for name, outcomes in by_strategy.items()
                          for i, outcome in outcomes.items() if outcome.label is not None)
    existing = {(q.query_id, q.doc_id): q for q in bench.qrels(settings.split)} \
        if bench.qrels_path(settings.split).exists() else {}
    existing.update({(q.query_id, q.doc_id): q for q in qrels})
    counts["qrels"] = bench.write_qrels(existing.values(), settings.split)
    merged = _merge_rows(LAYOUT.path(bench.root, "ensemble"), rows)
    write_jsonl(LAYOUT.path(bench.root, "ensemble"), merged)
    flagged = [row for row in merged if row["flagged"]]
    write_jsonl(LAYOUT.path(bench.root, "flagged"), flagged)
    counts["flagged"] = len(flagged)
    counts["positives_checked"] = sum(1 for row in merged if row["positive"])
    counts["judge_controls"] = _judge_controls(bench, engine, checks, by_control, settings)
    return report


def _judge_controls(bench: Benchmark, engine: Any, checks: Sequence[tuple[Control,
                    relsteps.Pair]], by_control: Mapping[str, Mapping[int, strat.Outcome]],
                    settings: LabelSettings) -> dict[str, Any]:
    """Score the controls, write their log and the judge_controls.json entry; the entry."""
    rows, _, _ = ensemble([p for _, p in checks], by_control, settings, set())
    figures, log = rcontrols.score_controls(checks, by_control, rows, ENSEMBLE_STEP)
    outcomes = [o for by in by_control.values() for o in by.values()]
    model = next((o.model for o in outcomes if o.model), str(getattr(engine, "model", "")))
    demo = any(o.demo_grade for o in outcomes) or bool(getattr(engine, "demo_grade", False))
    entry = rcontrols.judge_entry(figures if checks else [], ENSEMBLE_STEP, settings.split,
                                  model, demo, rcontrols.LAYOUT.relative("controls"))
    if not checks:
        entry["reasons"] = ["no query names a real source passage (seed_doc_id, source_doc, "
                            "gold_doc_id or a non-generated positive_doc_id) to make controls "
                            "from" if settings.controls else "controls were switched off"]
    rcontrols.record_controls(bench, entry, log)
    return entry


def _merge_rows(path: Path, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Earlier ensemble rows for pairs not labeled this time, then this run's rows."""
    fresh = {(row["query_id"], row["doc_id"]) for row in rows}
    old = [row for _, row in iter_jsonl(path)] if path.exists() else []
    return [row for row in old if (row.get("query_id"), row.get("doc_id")) not in fresh] + \
        list(rows)


def _positives(bench: Benchmark) -> set[tuple[str, str]]:
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
