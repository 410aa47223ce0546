"""The instructions build's recipe knobs (recorded in the manifest)."""

from __future__ import annotations

from dataclasses import dataclass

from irforge.generators.instructions import steps


@dataclass(frozen=True)
class BuildSettings:
    """The recipe knobs recorded in the manifest."""

    phrasings: int = 1
    hard_negatives: int = 1
    rewrite: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.phrasings <= len(steps.PHRASINGS):
            raise ValueError(f"phrasings must be 1..{len(steps.PHRASINGS)}, got {self.phrasings}")
        if not 0 <= self.hard_negatives <= len(steps.ANGLES):
            raise ValueError(f"hard_negatives must be 0..{len(steps.ANGLES)}, "
                             f"got {self.hard_negatives}")
