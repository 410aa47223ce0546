"""The parameters of one MultiConIR build (recorded in the manifest)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from irforge.generators.multicon.assembly import DEFAULT_FILLER
from irforge.generators.multicon.domains import STRATEGIES, Domain
from irforge.generators.multicon.steps import PHRASE_MODES


@dataclass(frozen=True)
class MulticonConfig:
    """Parameters of one build; recorded in the manifest."""

    domain: Domain
    n: int = 10
    strategy: str | None = None
    pad_to: int | None = None
    seed: int = 0
    threshold: float = 90.0
    fixed_size: tuple[int, int] = (2, 3)
    adaptive: bool = False
    filler: tuple[str, ...] = DEFAULT_FILLER
    language: str | None = None  # queries' expected language; None: detected from the corpus
    phrases: str = "write"  # condition phrases: "write" (the model writes) or "pick" (key terms)

    def __post_init__(self) -> None:
        if self.phrases not in PHRASE_MODES:
            raise ValueError(f"unknown phrases mode {self.phrases!r}; use one of {PHRASE_MODES}")
        if self.n < 1:
            raise ValueError(f"n must be at least 1, got {self.n}")
        if self.strategy is not None and self.strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {self.strategy!r}; use one of {STRATEGIES}")
        if self.pad_to is not None and self.pad_to < 1:
            raise ValueError(f"pad_to must be a positive word count, got {self.pad_to}")
        if not 0 < self.threshold <= 100:
            raise ValueError(f"threshold is a rapidfuzz score in (0, 100], got {self.threshold}")

    @property
    def hard_negative_strategy(self) -> str:
        return self.strategy or self.domain.strategy

    def params(self) -> dict[str, Any]:
        return {"domain": self.domain.name, "entity": self.domain.entity,
                "features": list(self.domain.features), "n": self.n,
                "strategy": self.hard_negative_strategy,
                "pad_to": self.pad_to, "seed": self.seed, "threshold": self.threshold,
                "fixed_size": list(self.fixed_size), "adaptive": self.adaptive,
                "language": self.language, "phrases": self.phrases}
