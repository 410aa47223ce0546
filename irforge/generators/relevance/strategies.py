"""The three labeling strategies, each a few phases run through :func:`run_step`.

A strategy turns pairs into :class:`Outcome` objects: the label (argmax, and the expected
grade where the backend returned log-probs), the raw output of every phase, and for a pair
that got no label, the first phase that failed and why. The steps are in ``steps.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.core.records import Failure
from irforge.generators.relevance.probabilities import label_probabilities
from irforge.generators.relevance.steps import (
    SCORE_FIELDS,
    Pair,
    Phase,
    cot_bounds,
    cot_final_step,
    criterion_step,
    multi_dim_final_step,
    presence_step,
    zero_shot_step,
)
from irforge.steps import Step
from irforge.steps.runner import BuildRunner


@dataclass
class Outcome:
    """What one strategy concluded for one pair: a label, or the reason there is none."""

    strategy: str
    label: int | None = None
    expected: float | None = None  # expected grade from log-probs, when the backend gave them
    prompt_id: str = ""
    raws: dict[str, str | None] = field(default_factory=dict)
    parsed: dict[str, Any] = field(default_factory=dict)
    failure: Failure | None = None  # the first failing phase (step, reason, raw output)
    model: str = ""
    demo_grade: bool = False

    @property
    def value(self) -> float | None:
        """The label the ensemble uses: the expected grade when known, else the argmax."""
        return self.expected if self.expected is not None else self.label


@dataclass
class _Strategy:
    """One strategy run over some pairs: the build runner, the outcomes, and the step name."""

    runner: BuildRunner
    pairs: Sequence[Pair]
    name: str
    step: str
    outcomes: list[Outcome] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)  # phase key -> LLMResult

    def __post_init__(self) -> None:
        self.outcomes = [Outcome(self.name) for _ in self.pairs]

    def live(self) -> list[int]:
        return [i for i, outcome in enumerate(self.outcomes) if outcome.failure is None]

    def phase(self, step: Step, phases: Sequence[Phase]) -> dict[str, Any]:
        """Run one phase; records raw outputs and the first failure per pair. Returns the
        accepted values by phase key."""
        if not phases:
            return {}
        result = self.runner.ask(step, phases)
        by_key = {phase.key: phase for phase in phases}
        for phase in phases:
            answer = result.results.get(phase.key)
            outcome = self.outcomes[phase.index]
            if answer is not None:
                outcome.raws[phase.name] = answer.raw
                outcome.model = outcome.model or answer.model
                outcome.demo_grade = outcome.demo_grade or bool(answer.demo_grade)
        for failure in result.failures:
            phase = by_key[failure.item_id]
            outcome = self.outcomes[phase.index]
            if outcome.failure is None:
                outcome.failure = Failure(failure.step, phase.pair.item_id,
                                          f"{phase.name}: {failure.reason}", failure.raw_output,
                                          {"phase": phase.name, "strategy": self.name,
                                           "doc_id": phase.pair.doc_id,
                                           "query_id": phase.pair.query_id})
        self.answers.update(result.results)
        return result.accepted

    def criteria(self, names_of: Callable[[Pair], Sequence[str]]) -> None:
        """Score each live pair's criteria into ``parsed['criteria']``."""
        phases = [Phase(i, self.pairs[i], f"criterion:{name}")
                  for i in self.live() for name in names_of(self.pairs[i])]
        scores = self.phase(criterion_step(self.step), phases)
        for phase in phases:
            if phase.key in scores:
                self.outcomes[phase.index].parsed.setdefault("criteria", {})[
                    phase.name.removeprefix("criterion:")] = scores[phase.key]

    def final(self, step: Step, phases: Sequence[Phase], allowed: Callable[[Phase], list[int]],
              field_name: str) -> None:
        """Run the labeling phase: the argmax label, and the expected grade from log-probs."""
        labels = self.phase(step, phases)
        for phase in phases:
            outcome = self.outcomes[phase.index]
            if phase.key in labels:
                outcome.label = int(labels[phase.key])
                outcome.parsed[field_name] = outcome.label
            answer = self.answers.get(phase.key)
            if outcome.label is None or answer is None:
                continue
            probs = label_probabilities(getattr(answer, "logprobs", None), field_name,
                                        allowed(phase))
            if probs is not None:
                outcome.expected = probs.expected
                outcome.parsed.update(probs.as_metadata())


def _scale(phase: Phase) -> list[int]:
    return list(range(phase.pair.intent.relevance.top_label + 1))


def run_zero_shot(runner: BuildRunner, pairs: Sequence[Pair], step: str) -> list[Outcome]:
    """Strategy 1: one direct score per pair, one step per template."""
    run = _Strategy(runner, pairs, "zero_shot", step)
    groups: dict[str, list[Phase]] = {}
    for index, pair in enumerate(pairs):
        groups.setdefault(pair.intent.relevance.zero_shot_template, []).append(
            Phase(index, pair, "final"))
    for template, phases in groups.items():
        for phase in phases:
            run.outcomes[phase.index].prompt_id = template
        run.final(zero_shot_step(step, template), phases, _scale, SCORE_FIELDS["zero_shot"])
    return run.outcomes


def run_cot(runner: BuildRunner, pairs: Sequence[Pair], step: str) -> list[Outcome]:
    """Strategy 2: answer presence, criterion scores, then a final score bounded by phase 1."""
    run = _Strategy(runner, pairs, "cot", step)
    for outcome in run.outcomes:
        outcome.prompt_id = "relevance.cot_final"
    presence = [Phase(i, pair, "presence") for i, pair in enumerate(pairs)]
    found = run.phase(presence_step(step), presence)
    answers = {phase.index: found[phase.key] for phase in presence if phase.key in found}
    for index, answer in answers.items():
        run.outcomes[index].parsed["has_answer"] = answer
    run.criteria(lambda pair: list(pair.intent.relevance.cot_criteria))
    phases = [Phase(i, pairs[i], "final", {"has_answer": answers[i],
                                           "criteria": run.outcomes[i].parsed.get("criteria", {})})
              for i in run.live()]
    run.final(cot_final_step(step), phases,
              lambda phase: list(cot_bounds(phase.inputs["has_answer"])),
              SCORE_FIELDS["cot"])
    return run.outcomes


def run_multi_dim(runner: BuildRunner, pairs: Sequence[Pair], step: str) -> list[Outcome]:
    """Strategy 3: every criterion scored, then one aggregate score on the intent's scale."""
    run = _Strategy(runner, pairs, "multi_dim", step)
    for outcome in run.outcomes:
        outcome.prompt_id = "relevance.multi_dim_final"
    run.criteria(lambda pair: list(pair.intent.relevance.criteria))
    phases = [Phase(i, pairs[i], "final", {"criteria": run.outcomes[i].parsed["criteria"]})
              for i in run.live()]
    run.final(multi_dim_final_step(step), phases, _scale, SCORE_FIELDS["multi_dim"])
    return run.outcomes


Runner = Callable[[BuildRunner, Sequence[Pair], str], list[Outcome]]

STRATEGIES: dict[str, Runner] = {
    "zero_shot": run_zero_shot,
    "cot": run_cot,
    "multi_dim": run_multi_dim,
}
