"""Queries that code assembles from accepted LLM outputs pass the same query gates.

MultiConIR's instruction-style query q_k lists the first k condition phrases, each accepted
by its own LLM step; the assembled text never came back from the model as one answer, so the
runner's gates (:func:`~irforge.steps.step.run_step`) never saw it. :func:`gate_assembled`
checks each assembled query against the run's gates, records every rejection as a Failure and
counts the step's yield, exactly as the runner does for model-written queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.steps.failures import rejection
from irforge.steps.gates import QueryGates
from irforge.steps.step import StepOutcome, StepYield, reason_key


@dataclass(frozen=True)
class AssembledQuery:
    """One query built by code: its id, text, source passage (title, text) and provenance."""

    key: str
    text: str
    source: tuple[str, str] = ("", "")
    metadata: Mapping[str, Any] = field(default_factory=dict)


def gate_assembled(step: str, queries: Sequence[AssembledQuery], gates: QueryGates
                   ) -> StepOutcome[str]:
    """Accepted query texts by key, a Failure per gated query, and the step's yield."""
    outcome: StepOutcome[str] = StepOutcome({}, [], [], StepYield(step))
    for query in queries:
        outcome.yield_.attempted += 1
        screened = gates.screen([query.text], query.source, query.metadata)
        # one check-and-admit (parallel methods share the index, in their order)
        reasons = gates.settle([query.text], screened, f"{step} item {query.key}")
        if reasons:
            failure = rejection(step, query.key, reasons, query.text, query.metadata)
            outcome.failures.append(failure)
            outcome.yield_.rejected[reason_key(failure.reason)] += 1
            continue
        outcome.accepted[query.key] = query.text
        outcome.yield_.accepted += 1
    return outcome
