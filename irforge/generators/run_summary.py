"""What a generation or labeling run reports: its yield table, its counts and the cost
estimate made before it (``--dry-run`` prints the estimate and stops)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.steps import StepYield
from irforge.steps.yields import YieldTable, require_yield


@dataclass
class RunSummary:
    """One run of a build or labeling verb: per-step yields, counts, the estimate."""

    yields: YieldTable = field(default_factory=YieldTable)
    counts: dict[str, Any] = field(default_factory=dict)
    estimate: dict[str, Any] = field(default_factory=dict)

    def manifest(self) -> dict[str, Any]:
        """The manifest step entry's share: counts, estimate and ``yield``."""
        return {**self.counts, "estimate": self.estimate, "yield": self.yields.to_manifest()}

    def require(self, step: str, what: str, where: str = "") -> None:
        """Raise :class:`~irforge.core.errors.EmptyResultError` (exit 3) unless ``step`` accepted
        something, naming the commonest reasons over every step and what to do."""
        final = self.yields.steps.get(step)
        if final is not None and final.accepted:
            return
        require_yield(YieldTable().extend(StepYield(y.step, y.attempted, 0, Counter(y.rejected))
                                          for y in self.yields.steps.values()), what, where)


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
