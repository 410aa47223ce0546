"""Cost estimates of a planned run (``--dry-run``): the engine's estimate summed over calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SUMMED = ("requests", "cached_items", "prompt_tokens", "max_completion_tokens",
          "input_cost_usd", "max_cost_usd")


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
    total["model"] = getattr(engine, "model", "")
    if by_template:
        total["by_template"] = parts
    return total
