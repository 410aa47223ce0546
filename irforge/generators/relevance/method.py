"""LLM relevance labeling (DisastIR 3.6) as a :class:`~irforge.steps.method.Method`:
the pairs of a pool file labelled into judgments and qrels (docs/annotation.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    controls_from: str | None = Field(None, description="hand-verified queries whose judged "
                                      "documents become controls too: a benchmark folder "
                                      "or 'sample' (the shipped sample queries)")
    seed: int = 0
    intent: str | None = Field(None, description="intent for queries whose metadata names none")
    intents_file: Path | None = Field(None, description="YAML file defining more intents or "
                                      "overriding built-in ones")


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Label the pool's pairs with every strategy and ensemble (``label_benchmark``); the
    report is the generator's."""
    from irforge.generators.relevance.build import ENSEMBLE_STEP

    report, files = _label(runner, config, inputs)
    runner.record("DisastIR relevance labeling (section 3.6)", config.options(), report.counts,
                  {"inputs": [str(f) for f in files], "estimate": report.estimate})
    return Built(runner.ledger.accepted(ENSEMBLE_STEP), dict(report.counts),
                 report.counts.get("judge_controls"),
                 str(runner.bench.qrels_path(config.split)), report)


def label_logprobs(label_probs: bool) -> int:
    """The log-probs a labeling engine asks for: the top ones with ``label_probs``, else 0."""
    from irforge.generators.relevance.probabilities import TOP_LOGPROBS

    return TOP_LOGPROBS if label_probs else 0


def estimate(runner: BuildRunner, config: Config, inputs: Inputs) -> Any:
    """The pairs and what labeling them would send (``--dry-run``): nothing sent or written."""
    return _label(runner, config, inputs, dry_run=True)[0]


def _label(runner: BuildRunner, config: Config, inputs: Inputs, dry_run: bool = False
           ) -> tuple[Any, list[Path]]:
    from irforge.generators.intents import load_intents
    from irforge.generators.relevance import LabelSettings, label_benchmark
    from irforge.generators.relevance.controls import verified_controls

    settings = LabelSettings(strategies=tuple(config.strategies), ensemble=config.ensemble,
                             binarization=config.binarization, split=config.split,
                             default_intent=config.intent,
                             include_positives=config.include_positives,
                             controls=config.controls, control_limit=config.control_limit,
                             seed=config.seed)
    files = [*([inputs.source] if inputs.source is not None else []), *inputs.files]
    intents = load_intents(config.intents_file)
    verified = verified_controls(config.controls_from, intents, config.intent, config.seed,
                                 config.control_limit) \
        if config.controls and config.controls_from else []
    return label_benchmark(runner, files, intents, settings, dry_run=dry_run,
                           extra_controls=verified), files


METHOD = Method("relevance", Config, ("relevance.zero_shot", "relevance.cot",
                                      "relevance.multi_dim", "relevance.ensemble"),
                build, "labeled pairs", estimate)
