"""InfoSearch instructed queries as a :class:`~irforge.methods.contract.Method`
(docs/instructions.md): built from another folder's labelled query-passage pairs."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from irforge.methods.contract import Built, Inputs, Method, QueryMethodConfig
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


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Pairs from the source folder's qrels, then the steps (``build_instructions``)."""
    from irforge.core.errors import IrforgeError
    from irforge.generators.instructions.build import BuildSettings, build_instructions
    from irforge.generators.instructions.dimensions import load_dimensions
    from irforge.generators.instructions.pairs import PAIRS_STEP, pairs_from_beir

    if inputs.source is None:
        raise IrforgeError("instructions build on a labelled folder: give its path")
    dims = load_dimensions(None)
    if config.dimension not in dims:
        raise IrforgeError(f"dimension {config.dimension!r} is not one of {', '.join(dims)}")
    skipped: list = []
    pairs, distractors = pairs_from_beir(inputs.source, config.dimension, config.split,
                                         skipped)
    runner.ledger.count(PAIRS_STEP, len(pairs) + len(skipped), skipped)
    if not pairs:
        raise IrforgeError(f"{inputs.source}: no positive qrels in split {config.split!r} "
                           "that answer their query (graded >= 2, or the query's source)")
    pairs = pairs[:config.limit] if config.limit else pairs
    try:
        settings = BuildSettings(phrasings=config.phrasings, rewrite=config.rewrite,
                                 hard_negatives=config.hard_negatives, seed=config.seed)
    except ValueError as exc:
        raise IrforgeError(str(exc)) from exc
    report = build_instructions(runner.bench.root, pairs, runner.engine, dims, settings,
                                distractors, {"input": str(inputs.source),
                                              "split": config.split}, runner)
    return Built(int(report.counts.get("units", 0)), dict(report.counts))


METHOD = Method("instructions", Config, ("instructions.keyword", "instructions.rewrite",
                                         "instructions.instruction", "instructions.reverse",
                                         "instructions.hard_negative"),
                build, "instruction units")
