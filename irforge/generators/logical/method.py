"""ComLQ logical queries as a :class:`~irforge.steps.method.Method` (docs/logical.md)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from irforge.core.errors import IrforgeError
from irforge.steps.method import Built, Inputs, Method, QueryMethodConfig
from irforge.steps.runner import BuildRunner


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


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Read the corpus and build (``build_logical``)."""
    from dataclasses import asdict

    from irforge.generators.logical.build import build_logical

    summary = build_logical(runner, inputs.documents(), config)
    return Built(summary.accepted, {k: v for k, v in asdict(summary).items() if k != "yields"},
                 summary.judge_controls, f"{runner.bench.root} (the queries it kept)", summary)


def estimate(runner: BuildRunner, config: Config, inputs: Inputs) -> Any:
    """What the query step would send for the seeded plans (``--dry-run``)."""
    from irforge.generators.logical.build import query_items
    from irforge.generators.logical.steps import LogicalQueryOutput

    _, items = query_items(inputs.documents(), config)
    return runner.engine.estimate(items, "logical.query", LogicalQueryOutput)


METHOD = Method("logical", Config, ("logical.query", "logical.judge", "logical.hypothetical"),
                build, "logical queries", estimate)
