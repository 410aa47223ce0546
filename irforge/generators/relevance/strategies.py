"""The three labeling strategies of DisastIR 3.6 (appendix C), each a few batched engine phases.

- ``zero_shot``: one call, a score on the intent's scale.
- ``cot``: answer presence (Yes/No), criterion scores, then a final score that phase one
  restricts: "No" allows only 0 or 1, "Yes" only 2 or 3 (enforced by the output schema and
  checked again in code).
- ``multi_dim``: a score per criterion, then an aggregate score on the intent's scale.

Criterion calls use one template for both cot and multi_dim, so identical calls hit the cache.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from irforge.generators.intents.config import IntentSpec
from irforge.llm.protocol import EngineLike

PRESENCE = "relevance.cot_presence"
CRITERION = "relevance.criterion"
COT_FINAL = "relevance.cot_final"
MULTI_FINAL = "relevance.multi_dim_final"


@dataclass(frozen=True)
class Pair:
    """One (query, passage) pair to label, with the intent that defines relevance for it."""

    query_id: str
    doc_id: str
    query: str
    passage: str
    intent: IntentSpec

    @property
    def item_id(self) -> str:
        return f"{self.query_id}::{self.doc_id}"


@dataclass
class Outcome:
    """What one strategy concluded for one pair: a label, or the reason there is none."""

    strategy: str
    label: int | None = None
    prompt_id: str = ""
    raws: dict[str, str | None] = field(default_factory=dict)
    parsed: dict[str, Any] = field(default_factory=dict)
    failure: tuple[str, Any] | None = None  # (phase, engine result or reason text)
    model: str = ""
    demo_grade: bool = False


class PhaseViolation(ValueError):
    """A CoT final score outside the range phase one allows."""


class Presence(BaseModel):
    has_answer: Literal["Yes", "No"]


class CriterionScore(BaseModel):
    criterion_score: int = Field(ge=0, le=3)


@lru_cache(maxsize=32)
def score_model(key: str, top: int) -> type[BaseModel]:
    """An output model with one integer field ``key`` from 0 to ``top``."""
    return create_model(f"Score_{key}_{top}", **{key: (int, Field(ge=0, le=top))})


def cot_bounds(has_answer: str) -> tuple[int, int]:
    """The two scores phase three may give: (0, 1) after "No", (2, 3) after "Yes"."""
    if has_answer == "Yes":
        return 2, 3
    if has_answer == "No":
        return 0, 1
    raise ValueError(f"answer presence must be 'Yes' or 'No', got {has_answer!r}")


@lru_cache(maxsize=4)
def cot_final_model(has_answer: str) -> type[BaseModel]:
    """Output model for phase three whose schema admits only the scores phase one allows."""
    low, high = cot_bounds(has_answer)
    return create_model(f"CotFinal{has_answer}", relevance_score=(Literal[low, high], ...))


def check_cot_phase(has_answer: str, score: int) -> int:
    """The score, if phase one allows it; else :class:`PhaseViolation`."""
    low, high = cot_bounds(has_answer)
    if score not in (low, high):
        raise PhaseViolation(f"phase one answered {has_answer!r}, so the final score must be "
                             f"{low} or {high}, got {score}")
    return score


def base_variables(pair: Pair) -> dict[str, Any]:
    spec = pair.intent.relevance
    return {"query": pair.query, "passage": pair.passage,
            "query_name": spec.query_name, "passage_name": spec.passage_name}


def _note(outcome: Outcome, result: Any) -> None:
    outcome.model = outcome.model or result.model
    outcome.demo_grade = outcome.demo_grade or bool(getattr(result, "demo_grade", False))


def _criteria_text(scores: dict[str, int]) -> str:
    return ", ".join(f"{name} {value}" for name, value in scores.items())


Runner = Callable[[EngineLike, Sequence[Pair], str], list[Outcome]]


def _final_phase(engine: EngineLike, outcomes: list[Outcome], indexes: Sequence[int],
                 items: list[dict[str, Any]], template: str, field: str, top: int,
                 step: str) -> None:
    """Ask one final score per item and record label, raw output or failure on its outcome."""
    results = engine.run(items, template, score_model(field, top), step=step)
    for i, result in zip(indexes, results, strict=True):
        outcome = outcomes[i]
        outcome.raws["final"] = result.raw
        _note(outcome, result)
        if result.status != "ok":
            outcome.failure = ("final", result)
            continue
        outcome.label = int(getattr(result.value, field))
        outcome.parsed[field] = outcome.label


def run_zero_shot(engine: EngineLike, pairs: Sequence[Pair], step: str) -> list[Outcome]:
    """Strategy 1: one direct score per pair, grouped by template and scale."""
    outcomes = [Outcome("zero_shot") for _ in pairs]
    groups: dict[tuple[str, int], list[int]] = {}
    for index, pair in enumerate(pairs):
        spec = pair.intent.relevance
        groups.setdefault((spec.zero_shot_template, spec.top_label), []).append(index)
    for (template, top), indexes in groups.items():
        items = [{**base_variables(pairs[i]), "goal": pairs[i].intent.relevance.goal,
                  "scale": list(pairs[i].intent.relevance.scale)} for i in indexes]
        for i in indexes:
            outcomes[i].prompt_id = template
        _final_phase(engine, outcomes, indexes, items, template, "final_score", top, step)
    return outcomes


def _criterion_phase(engine: EngineLike, pairs: Sequence[Pair], outcomes: list[Outcome],
                     names_of: Callable[[Pair], list[str]], step: str) -> None:
    """Score each pair's criteria; a pair with any failed criterion gets a failure."""
    jobs: list[tuple[int, str]] = [(i, name) for i, pair in enumerate(pairs)
                                   for name in names_of(pair)]
    items = [{**base_variables(pairs[i]), "criterion_name": name,
              "criterion_definition": pairs[i].intent.relevance.criteria[name]}
             for i, name in jobs]
    results = engine.run(items, CRITERION, CriterionScore, step=step) if items else []
    for (i, name), result in zip(jobs, results, strict=True):
        outcome = outcomes[i]
        outcome.raws[f"criterion:{name}"] = result.raw
        _note(outcome, result)
        if result.status != "ok":
            outcome.failure = outcome.failure or (f"criterion:{name}", result)
            continue
        outcome.parsed.setdefault("criteria", {})[name] = int(result.value.criterion_score)


def run_cot(engine: EngineLike, pairs: Sequence[Pair], step: str) -> list[Outcome]:
    """Strategy 2: answer presence, criterion scores, then a final score bounded by phase 1."""
    outcomes = [Outcome("cot", prompt_id=COT_FINAL) for _ in pairs]
    items = [{**base_variables(pair), "presence_question": pair.intent.relevance.presence_question}
             for pair in pairs]
    results = engine.run(items, PRESENCE, Presence, step=step) if items else []
    for outcome, result in zip(outcomes, results, strict=True):
        outcome.raws["presence"] = result.raw
        _note(outcome, result)
        if result.status != "ok":
            outcome.failure = ("presence", result)
        else:
            outcome.parsed["has_answer"] = result.value.has_answer
    live = [i for i, outcome in enumerate(outcomes) if outcome.failure is None]
    sub_outcomes = [outcomes[i] for i in live]
    _criterion_phase(engine, [pairs[i] for i in live], sub_outcomes,
                     lambda pair: list(pair.intent.relevance.cot_criteria), step)
    for answer in ("Yes", "No"):
        chosen = [i for i in live if outcomes[i].failure is None
                  and outcomes[i].parsed["has_answer"] == answer]
        if not chosen:
            continue
        low, high = cot_bounds(answer)
        items = []
        for i in chosen:
            scale = pairs[i].intent.relevance.scale
            items.append({**base_variables(pairs[i]), "goal": pairs[i].intent.relevance.goal,
                          "has_answer": answer, "low": low, "high": high,
                          "low_label": scale[low], "high_label": scale[high],
                          "criteria_scores": _criteria_text(outcomes[i].parsed.get("criteria",
                                                                                   {}))})
        results = engine.run(items, COT_FINAL, cot_final_model(answer), step=step)
        for i, result in zip(chosen, results, strict=True):
            outcome = outcomes[i]
            outcome.raws["final"] = result.raw
            _note(outcome, result)
            if result.status != "ok":
                outcome.failure = ("final", result)
                continue
            try:
                outcome.label = check_cot_phase(answer, int(result.value.relevance_score))
            except PhaseViolation as exc:
                outcome.failure = ("final", str(exc))
                continue
            outcome.parsed["relevance_score"] = outcome.label
    return outcomes


def run_multi_dim(engine: EngineLike, pairs: Sequence[Pair], step: str) -> list[Outcome]:
    """Strategy 3: every criterion scored, then one aggregate score on the intent's scale."""
    outcomes = [Outcome("multi_dim", prompt_id=MULTI_FINAL) for _ in pairs]
    _criterion_phase(engine, pairs, outcomes,
                     lambda pair: list(pair.intent.relevance.criteria), step)
    groups: dict[int, list[int]] = {}
    for i, outcome in enumerate(outcomes):
        if outcome.failure is None:
            groups.setdefault(pairs[i].intent.relevance.top_label, []).append(i)
    for top, indexes in groups.items():
        items = [{**base_variables(pairs[i]), "goal": pairs[i].intent.relevance.goal,
                  "scale": list(pairs[i].intent.relevance.scale),
                  "criteria_scores": _criteria_text(outcomes[i].parsed["criteria"])}
                 for i in indexes]
        _final_phase(engine, outcomes, indexes, items, MULTI_FINAL, "final_relevance_score", top,
                     step)
    return outcomes


STRATEGIES: dict[str, Runner] = {
    "zero_shot": run_zero_shot,
    "cot": run_cot,
    "multi_dim": run_multi_dim,
}
