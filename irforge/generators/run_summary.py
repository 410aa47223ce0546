"""What a generation or labeling run reports: its yield table, its counts and the cost
estimate made before it (``--dry-run`` prints the estimate and stops). Whether it kept
anything is the build runner's ``finish`` (:mod:`irforge.steps.runner`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.steps.yields import YieldTable


@dataclass
class RunSummary:
    """One run of a build or labeling verb: per-step yields, counts, the estimate."""

    yields: YieldTable = field(default_factory=YieldTable)
    counts: dict[str, Any] = field(default_factory=dict)
    estimate: dict[str, Any] = field(default_factory=dict)

    def manifest(self) -> dict[str, Any]:
        """The manifest step entry's share: counts, estimate and ``yield``."""
        return {**self.counts, "estimate": self.estimate, "yield": self.yields.to_manifest()}


SUMMED = ("requests", "cached_items", "prompt_tokens", "max_completion_tokens",
          "input_cost_usd", "max_cost_usd", "too_long")


def estimate_calls(engine: Any, calls: Mapping[tuple[str, Any], Sequence[Mapping[str, Any]]],
                   by_template: bool = False) -> dict[str, Any]:
    """Totals over ``{(template, output model): items}``; ``by_template`` keeps each part."""
    total: dict[str, Any] = {key: 0 for key in SUMMED}
    total["priced"] = True
    parts: dict[str, Any] = {}
    for (template, model), items in calls.items():
        part = engine.estimate(list(items), template, model).as_dict()
        parts[template] = part
        for key in SUMMED:
            total[key] += part.get(key, 0)
        total["priced"] = total["priced"] and part["priced"]
        total["context_tokens"] = part.get("context_tokens")
    total["model"] = getattr(engine, "model", "")
    if by_template:
        total["by_template"] = parts
    return total


def added_estimates(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """Two estimates of one run (:func:`estimate_calls`) as one: counts and costs summed."""
    out = {**first, **{key: first.get(key, 0) + second.get(key, 0) for key in SUMMED}}
    out["priced"] = bool(first.get("priced", True) and second.get("priced", True))
    return out
