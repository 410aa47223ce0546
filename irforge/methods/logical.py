"""ComLQ logical queries as a :class:`~irforge.methods.contract.Method` (docs/logical.md)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from irforge.methods.contract import Built, Inputs, Method, QueryMethodConfig
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


def generator_config(config: Config) -> Any:
    """The generator's ``LogicalConfig`` for ``config`` (types parsed, ``all`` expanded)."""
    from irforge.generators.logical.build import LogicalConfig
    from irforge.generators.logical.types import parse_types

    return LogicalConfig(
        types=tuple(t.name for t in parse_types(",".join(config.types))),
        per_type=config.per_type, seed=config.seed, group_key=config.group_key,
        max_passages=config.max_passages, distractors=config.distractors,
        hypothetical=config.hypothetical, judge=config.judge,
        min_judge_score=config.min_judge_score, judge_controls=config.judge_controls,
        passage_sentences=config.passage_sentences)


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Read the corpus and build (``build_logical``)."""
    from dataclasses import asdict

    from irforge.core import beir
    from irforge.generators.logical.build import build_logical

    summary = build_logical(runner.bench.root, list(beir.read_corpus(inputs.corpus)),
                            generator_config(config), runner.engine, runner)
    return Built(summary.accepted, {k: v for k, v in asdict(summary).items() if k != "yields"},
                 summary.judge_controls, f"{runner.bench.root} (the queries it kept)")


METHOD = Method("logical", Config, ("logical.query", "logical.judge", "logical.hypothetical"),
                build, "logical queries")
