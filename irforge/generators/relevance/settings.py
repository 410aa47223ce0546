"""How to label: strategies, ensemble, binarization (checked when built)."""

from __future__ import annotations

from dataclasses import dataclass

from irforge.core.errors import IrforgeError
from irforge.generators.intents.config import STRATEGY_NAMES
from irforge.generators.relevance import strategies as strat
from irforge.generators.relevance.aggregate import Binarization, get_ensemble


@dataclass(frozen=True)
class LabelSettings:
    """How to label: which strategies, how to ensemble, how to binarize qrels."""

    strategies: tuple[str, ...] = STRATEGY_NAMES
    ensemble: str = "mean"
    binarization: str = "graded"
    split: str = "test"
    default_intent: str | None = None
    include_positives: bool = True
    controls: bool = True  # mix in control items (generators/relevance/controls.py)
    control_limit: int = 50  # sources (queries) controls are made from, at most
    seed: int = 0  # which sources, which negatives, and the shuffled order

    def __post_init__(self) -> None:
        unknown = [name for name in self.strategies if name not in strat.STRATEGIES]
        if unknown or not self.strategies:
            raise IrforgeError(f"unknown or no strategies {unknown}; choose from "
                               f"{list(strat.STRATEGIES)}")
        get_ensemble(self.ensemble)
        Binarization(self.binarization)
