"""Ensemble LLM relevance labeling of a benchmark folder (DisastIR 3.6, appendix C and D).

Pairs come from pair/pool files plus, by default, each generated query's own positive passage.
Every strategy's label and raw output go to ``judgments.jsonl``; failures to
``failures.jsonl``; the ensemble to ``qrels/<split>.tsv`` and ``relevance/ensemble.jsonl``;
generated passages the ensemble does not give the top label to, to ``relevance/flagged.jsonl``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.bench import Benchmark
from irforge.errors import FormatError, IrforgeError, Problem
from irforge.generators.intents.config import STRATEGY_NAMES, IntentSpec
from irforge.generators.relevance import strategies as strat
from irforge.generators.relevance.aggregate import (
    Binarization,
    get_ensemble,
    is_flagged,
    round_half_up,
)
from irforge.generators.relevance.pairs import read_pairs
from irforge.jsonl import iter_jsonl, write_jsonl
from irforge.records import Failure, Judgment, Qrel
from irforge.steps.failures import failure_from_result

STEP = "relevance"


@dataclass(frozen=True)
class LabelSettings:
    """How to label: which strategies, how to ensemble, how to binarize qrels."""

    strategies: tuple[str, ...] = STRATEGY_NAMES
    ensemble: str = "mean"
    binarization: str = "graded"
    split: str = "test"
    default_intent: str | None = None
    include_positives: bool = True

    def __post_init__(self) -> None:
        unknown = [name for name in self.strategies if name not in strat.STRATEGIES]
        if unknown or not self.strategies:
            raise IrforgeError(f"unknown or no strategies {unknown}; choose from "
                               f"{list(strat.STRATEGIES)}")
        get_ensemble(self.ensemble)
        Binarization(self.binarization)


@dataclass
class LabelReport:
    """Counts of one labeling run, for the CLI and the manifest."""

    pairs: int = 0
    judgments_written: int = 0
    judgments_reused: int = 0
    failures: int = 0
    qrels: int = 0
    flagged: int = 0
    positives_checked: int = 0
    estimate: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def collect_pairs(bench: Benchmark, pair_files: Sequence[Path],
                  intents: Mapping[str, IntentSpec], settings: LabelSettings) -> list[strat.Pair]:
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
        pairs.append(strat.Pair(query_id, doc_id, query.text, docs[doc_id].text, intents[name]))
    return pairs


def estimate_labeling(engine: Any, pairs: Sequence[strat.Pair],
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
        base = strat.base_variables(pair)
        chosen = [name for name in strategies if name in spec.strategies]
        if "zero_shot" in chosen:
            add(spec.zero_shot_template, strat.score_model("final_score", spec.top_label),
                {**base, "goal": spec.goal, "scale": list(spec.scale)})
        names: list[str] = []
        if "cot" in chosen:
            names += list(spec.cot_criteria)
            add(strat.PRESENCE, strat.Presence, {**base, "presence_question":
                                                 spec.presence_question})
            add(strat.COT_FINAL, strat.cot_final_model("Yes"),
                {**base, "goal": spec.goal, "has_answer": "Yes", "low": 2, "high": 3,
                 "low_label": spec.scale[2], "high_label": spec.scale[3],
                 "criteria_scores": ", ".join(f"{n} 0" for n in spec.cot_criteria)})
        if "multi_dim" in chosen:
            names += list(spec.criteria)
            add(strat.MULTI_FINAL, strat.score_model("final_relevance_score", spec.top_label),
                {**base, "goal": spec.goal, "scale": list(spec.scale),
                 "criteria_scores": ", ".join(f"{n} 0" for n in spec.criteria)})
        for name in names:
            if (pair.query_id, pair.doc_id, name) in criteria_seen:
                continue  # cot and multi_dim share criterion calls through the cache
            criteria_seen.add((pair.query_id, pair.doc_id, name))
            add(strat.CRITERION, strat.CriterionScore,
                {**base, "criterion_name": name, "criterion_definition": spec.criteria[name]})
    total: dict[str, Any] = {"requests": 0, "cached_items": 0, "prompt_tokens": 0,
                             "max_completion_tokens": 0, "input_cost_usd": 0.0,
                             "max_cost_usd": 0.0, "priced": True, "by_template": {}}
    for (template, model), items in calls.items():
        part = engine.estimate(items, template, model).as_dict()
        total["by_template"][template] = part
        for key in ("requests", "cached_items", "prompt_tokens", "max_completion_tokens",
                    "input_cost_usd", "max_cost_usd"):
            total[key] += part[key]
        total["priced"] = total["priced"] and part["priced"]
    total["model"] = getattr(engine, "model", "")
    return total


def _judgment(pair: strat.Pair, outcome: strat.Outcome) -> Judgment:
    return Judgment(query_id=pair.query_id, doc_id=pair.doc_id, label=float(outcome.label),
                    source="llm", prompt_id=outcome.prompt_id, model=outcome.model,
                    raw_output=json.dumps(outcome.raws, ensure_ascii=False),
                    task="relevance", metadata={
                        "strategy": outcome.strategy, "intent": pair.intent.name,
                        "scale_max": pair.intent.relevance.top_label,
                        "phases": outcome.parsed, "demo_grade": outcome.demo_grade})


def _failure(pair: strat.Pair, outcome: strat.Outcome) -> Failure:
    phase, cause = outcome.failure or ("?", "unknown")
    step = f"{STEP}.{outcome.strategy}"
    meta = {"phase": phase, "strategy": outcome.strategy, "doc_id": pair.doc_id,
            "query_id": pair.query_id}
    if isinstance(cause, str):
        return Failure(step, pair.item_id, f"{phase}: {cause}", outcome.raws.get(phase), meta)
    failure = failure_from_result(step, pair.item_id, cause, meta)
    return Failure(failure.step, failure.item_id, f"{phase}: {failure.reason}",
                   failure.raw_output, failure.metadata)


def run_strategies(engine: Any, pairs: Sequence[strat.Pair],
                   strategies: Sequence[str]) -> dict[str, dict[int, strat.Outcome]]:
    """Every chosen strategy on the pairs whose intent allows it: {strategy: {pair index: ...}}."""
    out: dict[str, dict[int, strat.Outcome]] = {}
    for name in strategies:
        indexes = [i for i, pair in enumerate(pairs) if name in pair.intent.relevance.strategies]
        outcomes = strat.STRATEGIES[name](engine, [pairs[i] for i in indexes], f"{STEP}.{name}")
        out[name] = dict(zip(indexes, outcomes, strict=True))
    return out


def label_benchmark(bench: Benchmark, engine: Any, pair_files: Sequence[Path],
                    intents: Mapping[str, IntentSpec], settings: LabelSettings,
                    dry_run: bool = False) -> LabelReport:
    """Label the pairs with every strategy, ensemble, write judgments, qrels and flags."""
    pairs = collect_pairs(bench, pair_files, intents, settings)
    report = LabelReport(pairs=len(pairs))
    report.estimate = estimate_labeling(engine, pairs, settings.strategies)
    if dry_run or not pairs:
        return report
    by_strategy = run_strategies(engine, pairs, settings.strategies)
    seen = {(j.query_id, j.doc_id, j.metadata.get("strategy"), j.model)
            for j in bench.judgments() if j.source == "llm" and j.task == "relevance"}
    judgments: list[Judgment] = []
    failures: list[Failure] = []
    for name, outcomes in by_strategy.items():
        for i, outcome in outcomes.items():
            if outcome.label is None:
                failures.append(_failure(pairs[i], outcome))
                continue
            key = (pairs[i].query_id, pairs[i].doc_id, name, outcome.model)
            if key in seen:
                report.judgments_reused += 1
                continue
            judgments.append(_judgment(pairs[i], outcome))
    rows, qrels, more = ensemble(pairs, by_strategy, settings, _positives(bench))
    failures.extend(more)
    report.judgments_written = bench.add_judgments(judgments)
    report.failures = bench.add_failures(failures)
    bench.retire_failures((f"{STEP}.{name}", pairs[i].item_id)
                          for name, outcomes in by_strategy.items()
                          for i, outcome in outcomes.items() if outcome.label is not None)
    existing = {(q.query_id, q.doc_id): q for q in bench.qrels(settings.split)} \
        if bench.qrels_path(settings.split).exists() else {}
    existing.update({(q.query_id, q.doc_id): q for q in qrels})
    report.qrels = bench.write_qrels(existing.values(), settings.split)
    merged = _merge_rows(bench.root / STEP / "ensemble.jsonl", rows)
    write_jsonl(bench.root / STEP / "ensemble.jsonl", merged)
    flagged = [row for row in merged if row["flagged"]]
    write_jsonl(bench.root / STEP / "flagged.jsonl", flagged)
    report.flagged = len(flagged)
    report.positives_checked = sum(1 for row in merged if row["positive"])
    return report


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


def ensemble(pairs: Sequence[strat.Pair], by_strategy: Mapping[str, Mapping[int, strat.Outcome]],
             settings: LabelSettings, positives: set[tuple[str, str]],
             ) -> tuple[list[dict[str, Any]], list[Qrel], list[Failure]]:
    """Per pair: the ensemble score, the qrel label, and the consistency flag."""
    combine = get_ensemble(settings.ensemble)
    binarize = Binarization(settings.binarization)
    rows: list[dict[str, Any]] = []
    qrels: list[Qrel] = []
    failures: list[Failure] = []
    for i, pair in enumerate(pairs):
        labels = {name: outcomes[i].label for name, outcomes in by_strategy.items()
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
            failures.append(Failure(f"{STEP}.ensemble", pair.item_id, reason))
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
