"""InfoSearch instructed queries as a :class:`~irforge.steps.method.Method`
(docs/instructions.md): built from another folder's labelled query-passage pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from irforge.core.errors import IrforgeError
from irforge.steps.method import Built, Inputs, Method, QueryMethodConfig
from irforge.steps.runner import BuildRunner


class Config(QueryMethodConfig):
    """``irforge build instructions`` options and the recipe's ``methods.instructions``."""

    from_: Literal["intents"] = Field("intents", alias="from")
    dimension: str = "audience"
    split: str = "test"
    phrasings: int = Field(1, ge=1)
    hard_negatives: int = Field(1, ge=0)
    rewrite: bool = True
    seed: int = 0
    limit: int | None = Field(None, ge=1)
    pairs: Path | None = Field(None, description="JSONL of positive pairs instead of the "
                               "source folder's qrels")
    dimensions_file: Path | None = Field(None, description="YAML adding or changing "
                                         "dimensions and values")


class InstructionsInputError(IrforgeError, ValueError):
    """The build names no input, or two, or an input without pairs."""


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Pairs from ``pairs`` or the source folder's qrels, then the steps
    (``build_instructions``); the report is the generator's."""
    from irforge.generators.instructions.build import BuildSettings, build_instructions
    from irforge.generators.instructions.dimensions import load_dimensions
    from irforge.generators.instructions.pairs import PAIRS_STEP

    dims = load_dimensions(config.dimensions_file)
    skipped: list[Any] = []  # related passages that do not answer their core query
    pairs, distractors = _pairs(config, inputs, dims, skipped)
    if inputs.source is not None:
        runner.ledger.count(PAIRS_STEP, len(pairs) + len(skipped), skipped)
    try:
        settings = BuildSettings(phrasings=config.phrasings, rewrite=config.rewrite,
                                 hard_negatives=config.hard_negatives, seed=config.seed)
    except ValueError as exc:
        raise IrforgeError(str(exc)) from exc
    recipe = {"input": str(config.pairs or inputs.source or "pairs given in memory"),
              "split": config.split if inputs.source is not None else None}
    report = build_instructions(runner, pairs, dims, settings, distractors, recipe)
    return Built(int(report.counts.get("units", 0)), dict(report.counts), report=report)


def _pairs(config: Config, inputs: Inputs, dims: dict[str, Any],
           skipped: list[Any]) -> tuple[list[Any], list[Any]]:
    """The pairs (first ``limit``) and the distractors: from the ``pairs`` file, or from
    the labelled folder ``inputs.source`` (its corpus stays as distractors; related passages
    that do not answer their core query go to ``skipped``)."""
    from irforge.generators.instructions.pairs import pairs_from_beir, read_pairs

    given = [what for what in (config.pairs, inputs.source, inputs.pairs) if what is not None]
    if len(given) != 1:
        raise InstructionsInputError("give exactly one of --pairs PAIRS.jsonl or --corpus "
                                     "BEIR_DIR (instructions build on a labelled folder)")
    distractors: list[Any] = []
    if inputs.pairs is not None:
        pairs = list(inputs.pairs)
    elif config.pairs is not None:
        pairs = read_pairs(config.pairs, dims, default_dimension=config.dimension)
    else:
        if config.dimension not in dims:
            raise InstructionsInputError(f"--dimension {config.dimension!r} is not one of "
                                         f"{', '.join(dims)}")
        pairs, distractors = pairs_from_beir(inputs.source, config.dimension, config.split,
                                             skipped)
        if not pairs:
            raise InstructionsInputError(f"{inputs.source}: no positive qrels in split "
                                         f"{config.split!r} that answer their query (graded "
                                         ">= 2, or the query's source passage)")
    return (pairs[:config.limit] if config.limit else pairs), distractors


METHOD = Method("instructions", Config, ("instructions.keyword", "instructions.rewrite",
                                         "instructions.instruction", "instructions.reverse",
                                         "instructions.hard_negative"),
                build, "instruction units")
