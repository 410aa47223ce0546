"""The LLM steps of DisastIR's three labeling strategies (section 3.6, appendix C), each read
top to bottom here: output model, checks, and the :class:`Step` tying them to the template.

- ``zero_shot``: one step, a score on the intent's scale.
- ``cot``: answer presence (Yes/No), criterion scores, then a final score that phase one
  restricts: "No" allows only 0 or 1, "Yes" only 2 or 3 (enforced by the output schema and
  checked again in code).
- ``multi_dim``: a score per criterion, then an aggregate score on the intent's scale.

Criterion steps use one template for both cot and multi_dim, so identical calls hit the cache.
Every step's item is a :class:`Phase`: one pair, plus what earlier phases concluded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from irforge.generators.intents.config import IntentSpec
from irforge.steps import Rejected, Step

STEP = "relevance"
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
    context: str = ""  # the passage's title and section lines (prompts/context.py)

    @property
    def item_id(self) -> str:
        return f"{self.query_id}::{self.doc_id}"


@dataclass(frozen=True)
class Phase:
    """One call of a strategy for one pair: ``name`` (``presence``, ``criterion:<name>``,
    ``final``) and the inputs earlier phases gave it."""

    index: int
    pair: Pair
    name: str
    inputs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.pair.item_id}::{self.name}"


# -- output models ---------------------------------------------------------------------------

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


# -- checks ----------------------------------------------------------------------------------

class PhaseViolation(Rejected):
    """A CoT final score outside the range phase one allows."""


def check_cot_phase(has_answer: str, score: int) -> int:
    """The score, if phase one allows it; else :class:`PhaseViolation`."""
    low, high = cot_bounds(has_answer)
    if score not in (low, high):
        raise PhaseViolation(f"phase one answered {has_answer!r}, so the final score must be "
                             f"{low} or {high}, got {score}")
    return score


def base_variables(pair: Pair) -> dict[str, Any]:
    spec = pair.intent.relevance
    return {"query": pair.query, "passage": pair.passage, "context": pair.context,
            "query_name": spec.query_name, "passage_name": spec.passage_name}


def criteria_text(scores: Mapping[str, int]) -> str:
    return ", ".join(f"{name} {value}" for name, value in scores.items())


# -- the steps -------------------------------------------------------------------------------
# the field each scoring step fills: the label is read from it (and from its log-probs)
SCORE_FIELDS = {"zero_shot": "final_score", "criterion": "criterion_score",
                "cot": "relevance_score", "multi_dim": "final_relevance_score"}


def _phase_step(name: str, template: str, model: Any, variables: Any, accept: Any) -> Step:
    return Step(name=name, template=template, output_model=model, variables=variables,
                item_id=lambda phase: phase.key, accept=accept,
                metadata=lambda phase: {"source_doc": phase.pair.doc_id}, log_accepted=False)


def zero_shot_step(step: str, template: str) -> Step[Phase, int]:
    """Strategy 1: one direct score on the intent's scale."""
    def variables(phase: Phase) -> dict[str, Any]:
        spec = phase.pair.intent.relevance
        return {**base_variables(phase.pair), "goal": spec.goal, "scale": list(spec.scale)}

    return _phase_step(step, template,
                       lambda phase: score_model("final_score", phase.pair.intent.relevance
                                                 .top_label),
                       variables, lambda phase, value: int(value.final_score))


def presence_step(step: str) -> Step[Phase, str]:
    """CoT phase 1: does the passage hold what the query asks (Yes/No)?"""
    return _phase_step(step, PRESENCE, Presence,
                       lambda phase: {**base_variables(phase.pair), "presence_question":
                                      phase.pair.intent.relevance.presence_question},
                       lambda phase, value: value.has_answer)


def criterion_step(step: str) -> Step[Phase, int]:
    """CoT phase 2 / multi-dim phase 1: one criterion scored 0-3."""
    def variables(phase: Phase) -> dict[str, Any]:
        name = phase.name.removeprefix("criterion:")
        return {**base_variables(phase.pair), "criterion_name": name,
                "criterion_definition": phase.pair.intent.relevance.criteria[name]}

    return _phase_step(step, CRITERION, CriterionScore, variables,
                       lambda phase, value: int(value.criterion_score))


def cot_final_step(step: str) -> Step[Phase, int]:
    """CoT phase 3: a final score, bounded by the phase-one answer."""
    def variables(phase: Phase) -> dict[str, Any]:
        answer = phase.inputs["has_answer"]
        low, high = cot_bounds(answer)
        spec = phase.pair.intent.relevance
        return {**base_variables(phase.pair), "goal": spec.goal, "has_answer": answer,
                "low": low, "high": high, "low_label": spec.scale[low],
                "high_label": spec.scale[high],
                "criteria_scores": criteria_text(phase.inputs.get("criteria", {}))}

    return _phase_step(step, COT_FINAL, lambda phase: cot_final_model(phase.inputs["has_answer"]),
                       variables, lambda phase, value: check_cot_phase(
                           phase.inputs["has_answer"], int(value.relevance_score)))


def multi_dim_final_step(step: str) -> Step[Phase, int]:
    """Multi-dim phase 2: one aggregate score on the intent's scale from the criteria."""
    def variables(phase: Phase) -> dict[str, Any]:
        spec = phase.pair.intent.relevance
        return {**base_variables(phase.pair), "goal": spec.goal, "scale": list(spec.scale),
                "criteria_scores": criteria_text(phase.inputs["criteria"])}

    return _phase_step(step, MULTI_FINAL,
                       lambda phase: score_model("final_relevance_score",
                                                 phase.pair.intent.relevance.top_label),
                       variables, lambda phase, value: int(value.final_relevance_score))
