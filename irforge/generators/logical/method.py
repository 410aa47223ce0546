"""ComLQ logical queries as a :class:`~irforge.steps.method.Method` (docs/logical.md)."""

from __future__ import annotations

from typing import Any

from irforge.generators.logical.config import Config
from irforge.steps.method import Built, Inputs, Method
from irforge.steps.runner import BuildRunner

__all__ = ["METHOD", "Config"]


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
    from irforge.generators.logical.query_schema import LogicalQueryOutput
    from irforge.llm.profile import is_capable

    _, items = query_items(inputs.documents(), config, is_capable(runner.engine))
    return runner.engine.estimate(items, "logical.query", LogicalQueryOutput)


METHOD = Method("logical", Config, ("logical.query", "logical.judge", "logical.hypothetical"),
                build, "logical queries", estimate)
