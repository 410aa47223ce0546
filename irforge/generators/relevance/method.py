"""LLM relevance labeling (DisastIR 3.6) as a :class:`~irforge.steps.method.Method`:
the pairs of a pool file labelled into judgments and qrels (docs/annotation.md)."""

from __future__ import annotations

from pydantic import Field

from irforge.steps.method import Built, Inputs, Method, MethodConfig
from irforge.steps.runner import BuildRunner


class Config(MethodConfig):
    """``irforge label`` options and the recipe's ``label`` block."""

    strategies: list[str] = Field(default_factory=lambda: ["zero_shot"])
    ensemble: str = "mean"
    binarization: str = "graded"
    split: str = "test"
    include_positives: bool = True
    label_probs: bool = True
    controls: bool = True  # control pairs mixed in; a judge that fails them is untrusted
    control_limit: int = Field(50, ge=1)
    seed: int = 0


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Label the pool's pairs with every strategy and ensemble (``label_benchmark``)."""
    from irforge.generators.intents import load_intents
    from irforge.generators.relevance import LabelSettings, label_benchmark
    from irforge.generators.relevance.build import ENSEMBLE_STEP

    settings = LabelSettings(strategies=tuple(config.strategies), ensemble=config.ensemble,
                             binarization=config.binarization, split=config.split,
                             include_positives=config.include_positives,
                             controls=config.controls, control_limit=config.control_limit,
                             seed=config.seed)
    files = [inputs.source] if inputs.source is not None else []
    report = label_benchmark(runner.bench, runner.engine, files, load_intents(), settings,
                             runner=runner)
    runner.record("DisastIR relevance labeling (section 3.6)", config.options(), report.counts,
                  {"inputs": [str(f) for f in files], "estimate": report.estimate})
    return Built(runner.ledger.accepted(ENSEMBLE_STEP), dict(report.counts),
                 report.counts.get("judge_controls"),
                 str(runner.bench.qrels_path(config.split)))


METHOD = Method("relevance", Config, ("relevance.zero_shot", "relevance.cot",
                                      "relevance.multi_dim", "relevance.ensemble"),
                build, "labeled pairs")
