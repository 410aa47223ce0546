"""The ComLQ method's one Config: the recipe's ``methods.logical`` block, the
``irforge build logical`` flags (their defaults) and the manifest entry's ``config``."""

from __future__ import annotations

from pydantic import Field, field_validator

from irforge.core.errors import IrforgeError
from irforge.steps.method import QueryMethodConfig


class Config(QueryMethodConfig):
    """``irforge build logical`` options and the recipe's ``methods.logical`` block."""

    types: list[str] = Field(default_factory=lambda: ["1p", "2i", "2in"])
    per_type: int = Field(2, ge=1)
    passage_sentences: int = Field(4, ge=0)
    group_key: str = "title"
    max_passages: int = Field(3, ge=1, le=3)
    distractors: int | None = Field(None, ge=0)
    hypothetical: bool = False
    judge: bool = False
    judge_controls: bool = True  # control items mixed into the judge step
    min_judge_score: int = Field(3, ge=1, le=4)
    seed: int = 0

    @field_validator("types")
    @classmethod
    def _known_types(cls, value: list[str]) -> list[str]:
        """Each type checked by name, ``all`` expanded to the 14 types."""
        from irforge.generators.logical.types import parse_types

        try:
            return [t.name for t in parse_types(",".join(value))]
        except IrforgeError as exc:
            raise ValueError(str(exc)) from None
