"""``irforge label`` orchestration: pairs -> the three strategies (``strategies.py``, steps in
``steps.py``) -> ensemble -> judgments, qrels, flags (DisastIR 3.6, appendix C and D).

Pairs come from pair/pool files plus, by default, each generated query's own positive passage.
Every strategy's label and raw output go to ``judgments.jsonl``; failures to
``failures.jsonl``; the ensemble to ``qrels/<split>.tsv`` and ``relevance/ensemble.jsonl``;
generated passages the ensemble does not give the top label to, to ``relevance/flagged.jsonl``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError, Problem
from irforge.core.layouts.relevance import LAYOUT
from irforge.core.records import Judgment
from irforge.generators.control_hook import ControlReport, judge_with_controls
from irforge.generators.controls import Control
from irforge.generators.intents.config import IntentSpec
from irforge.generators.relevance import controls as rcontrols
from irforge.generators.relevance import steps as relsteps
from irforge.generators.relevance import strategies as strat
from irforge.generators.relevance.ensemble import (
    ENSEMBLE_STEP,
    ensemble,
    generated_positives,
    merge_rows,
)
from irforge.generators.relevance.pairs import read_pairs
from irforge.generators.relevance.settings import LabelSettings
from irforge.generators.relevance.steps import STEP
from irforge.generators.run_summary import RunSummary, estimate_calls
from irforge.prompts.context import doc_context
from irforge.steps.records import Records
from irforge.steps.runner import BuildRunner

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
        pairs.append(relsteps.Pair(query_id, doc_id, query.text, docs[doc_id].text, intents[name],
                                   doc_context(docs[doc_id])))
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


def run_strategies(runner: BuildRunner, pairs: Sequence[relsteps.Pair],
                   strategies: Sequence[str]) -> dict[str, dict[int, strat.Outcome]]:
    """Every chosen strategy on the pairs whose intent allows it: {strategy: {pair index: ...}}."""
    out: dict[str, dict[int, strat.Outcome]] = {}
    for name in strategies:
        indexes = [i for i, pair in enumerate(pairs) if name in pair.intent.relevance.strategies]
        outcomes = strat.STRATEGIES[name](runner, [pairs[i] for i in indexes], f"{STEP}.{name}")
        out[name] = dict(zip(indexes, outcomes, strict=True))
    return out


def judge_pairs(runner: BuildRunner, pairs: Sequence[relsteps.Pair],
                checks: Sequence[tuple[Control, relsteps.Pair]], settings: LabelSettings
                ) -> tuple[dict[str, dict[int, strat.Outcome]], ControlReport]:
    """Every strategy on the real and control pairs in one shuffled run (the judge-control
    hook): the real pairs' outcomes by strategy and the controls' report."""
    def judge(mixed: list[relsteps.Pair]) -> dict[str, dict[int, strat.Outcome]]:
        return {f"{STEP}.{name}": by for name, by in
                run_strategies(runner, mixed, settings.strategies).items()}

    judged, checked = judge_with_controls(
        judge, pairs, rcontrols.as_checked(checks), rcontrols.reader(checks), runner.engine,
        settings.seed, rcontrols.ensembled(checks, settings))
    return {step.rpartition(".")[2]: by for step, by in judged.items()}, checked


def label_benchmark(runner: BuildRunner, pair_files: Sequence[Path],
                    intents: Mapping[str, IntentSpec], settings: LabelSettings,
                    dry_run: bool = False, extra_controls: Sequence[Control] = ()
                    ) -> LabelReport:
    """Label the pairs with every strategy, ensemble, write judgments, qrels and flags.

    Control items (``extra_controls`` plus, with ``settings.controls``, those made from the
    folder's queries) are labeled in the same shuffled run and scored apart: figures in
    ``report.counts["judge_controls"]`` and ``judge_controls.json``, never in qrels or yields.
    The runner (the caller's) names the folder and the engine.
    """
    bench, engine = runner.bench, runner.engine
    pairs = collect_pairs(bench, pair_files, intents, settings)
    made = list(extra_controls) + (rcontrols.folder_controls(bench, settings.seed,
                                                              settings.control_limit)
                                   if settings.controls and pairs else [])
    checks = rcontrols.control_pairs(made, intents, settings.default_intent,
                                     {doc.doc_id: doc for doc in bench.corpus()} if made else {})
    report = LabelReport(counts={"pairs": len(pairs), "judgments_written": 0,
                                 "judgments_reused": 0, "failures": 0, "qrels": 0,
                                 "flagged": 0, "positives_checked": 0,
                                 "controls": len(checks)})
    report.estimate = estimate_labeling(engine, [*pairs, *(p for _, p in checks)],
                                        settings.strategies)
    report.yields = runner.yields
    if dry_run or not pairs:
        return report
    by_strategy, checked = judge_pairs(runner, pairs, checks, settings)
    seen = {(j.query_id, j.doc_id, j.metadata.get("strategy"), j.model)
            for j in bench.judgments() if j.source == "llm" and j.task == "relevance"}
    ledger, counts = runner.ledger, report.counts
    for name, outcomes in by_strategy.items():
        failed = [o.failure for o in outcomes.values() if o.failure is not None
                  and o.label is None]
        ledger.count(f"{STEP}.{name}", len(outcomes), failed)
        for i, outcome in outcomes.items():
            if outcome.label is None:
                continue
            ledger.succeeded.append((f"{STEP}.{name}", pairs[i].item_id))
            if (pairs[i].query_id, pairs[i].doc_id, name, outcome.model) in seen:
                counts["judgments_reused"] += 1
                continue
            ledger.judgments.append(_judgment(pairs[i], outcome))
    rows, qrels, more = ensemble(pairs, by_strategy, settings, generated_positives(bench))
    ledger.count(ENSEMBLE_STEP, len(pairs), more)
    written = runner.write_logs()
    counts["judgments_written"], counts["failures"] = written["judgments"], written["failures"]
    existing = {(q.query_id, q.doc_id): q for q in bench.qrels(settings.split)} \
        if bench.qrels_path(settings.split).exists() else {}
    existing.update({(q.query_id, q.doc_id): q for q in qrels})
    merged = merge_rows(LAYOUT.path(bench.root, "ensemble"), rows)
    flagged = [row for row in merged if row["flagged"]]
    counts["qrels"] = runner.write(Records(
        qrels={settings.split: list(existing.values())},
        files={LAYOUT.relative("ensemble"): merged, LAYOUT.relative("flagged"): flagged}
    ))[f"qrels/{settings.split}"]
    counts["flagged"] = len(flagged)
    counts["positives_checked"] = sum(1 for row in merged if row["positive"])
    counts["judge_controls"] = rcontrols.report_controls(runner, checked, settings,
                                                         bool(checks))
    return report

