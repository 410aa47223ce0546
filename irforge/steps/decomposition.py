"""The one adaptive decomposer (stage-aware decomposition, section 3.1): the LLM groups a
query's numbered conditions into sub-queries, each condition covered exactly once.

MultiConIR builds record its decompositions in query metadata; the eval pipelines decompose
queries at search time. Both run :func:`adaptive_step` through :func:`run_step`, so both get the
same prompt (``decomposition.adaptive``) and the same coverage validator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from irforge.steps.step import Step

TEMPLATE = "decomposition.adaptive"
MAX_SUBQUERIES = 10


class SubQuery(BaseModel):
    """One sub-query and the 1-based conditions it covers."""

    text: str
    conditions: list[int]


class AdaptiveDecomposition(BaseModel):
    """Sub-queries chosen by the LLM."""

    subqueries: list[SubQuery]


@dataclass(frozen=True)
class DecompositionItem:
    """A query to decompose: its id, text and conditions, and where it came from."""

    key: str
    query: str
    conditions: tuple[str, ...]
    metadata: dict[str, Any] = field(default_factory=dict)


def coverage_reasons(subqueries: Sequence[SubQuery], k: int,
                     max_subqueries: int = MAX_SUBQUERIES) -> list[str]:
    """Why a decomposition is unusable: empty sub-queries, conditions not covered exactly once,
    or too many sub-queries. Empty when it is usable."""
    reasons: list[str] = []
    if not subqueries:
        return ["no sub-query"]
    if len(subqueries) > max_subqueries:
        reasons.append(f"{len(subqueries)} sub-queries (max {max_subqueries})")
    covered: list[int] = []
    for index, sub in enumerate(subqueries, start=1):
        if not sub.text.strip():
            reasons.append(f"sub-query {index} is empty")
        if not sub.conditions:
            reasons.append(f"sub-query {index} covers no condition")
        covered.extend(sub.conditions)
    if sorted(covered) != list(range(1, k + 1)):
        reasons.append(f"sub-queries must cover conditions 1..{k} exactly once, "
                       f"got {sorted(covered)}")
    return reasons


def cleaned(subqueries: Sequence[SubQuery]) -> list[SubQuery]:
    """Sub-queries with their whitespace normalised."""
    return [SubQuery(text=" ".join(s.text.split()), conditions=list(s.conditions))
            for s in subqueries]


def adaptive_step(name: str, max_subqueries: int = MAX_SUBQUERIES
                  ) -> Step[DecompositionItem, list[SubQuery]]:
    """The adaptive decomposition step, logged under ``name`` (the caller's step name)."""

    def covers_each_condition_once(item: DecompositionItem,
                                   value: AdaptiveDecomposition) -> list[str]:
        return coverage_reasons(value.subqueries, len(item.conditions), max_subqueries)

    return Step(
        name=name, template=TEMPLATE, output_model=AdaptiveDecomposition,
        variables=lambda item: {"query": item.query, "conditions": list(item.conditions)},
        item_id=lambda item: item.key,
        validators=(covers_each_condition_once,),
        accept=lambda item, value: cleaned(value.subqueries),
        metadata=lambda item: dict(item.metadata))
