"""MultiConIR as a :class:`~irforge.methods.contract.Method` (docs/multicon.md)."""

from __future__ import annotations

from itertools import islice
from typing import Literal

from pydantic import Field

from irforge.methods.contract import Built, Inputs, Method, MethodConfig
from irforge.steps.runner import BuildRunner


class Config(MethodConfig):
    """``irforge build multicon`` options and the recipe's ``methods.multicon`` block."""

    n: int = Field(3, ge=2, description="conditions per document (paper: 10)")
    limit: int | None = Field(3, ge=1, description="documents used")
    domain: str = "derived"
    phrases: Literal["write", "pick"] = "write"
    strategy: Literal["modify", "keyword", "substitute"] | None = None
    pad_to: int | None = Field(None, ge=1)
    seed: int = 0
    threshold: float = Field(90.0, gt=0, le=100)
    adaptive: bool = False
    language: str | None = None


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Read the corpus, pick the domain, build and write (``build_multicon``)."""
    from irforge.core import beir
    from irforge.generators.multicon.build import MulticonConfig
    from irforge.generators.multicon.cli import _derived_domain, build_multicon
    from irforge.generators.multicon.domains import get_domain

    docs = list(islice(beir.read_corpus(inputs.corpus), config.limit))
    domain = (_derived_domain(docs, config.seed) if config.domain == "derived"
              else get_domain(config.domain, {}))
    generator = MulticonConfig(domain=domain, n=config.n, strategy=config.strategy,
                               pad_to=config.pad_to, seed=config.seed,
                               threshold=config.threshold, adaptive=config.adaptive,
                               language=config.language, phrases=config.phrases)
    counts = build_multicon(runner.bench.root, docs, generator, runner.engine,
                            source=str(inputs.corpus), runner=runner)
    return Built(counts["sources"], counts)


METHOD = Method("multicon", Config, ("multicon.conditions", "multicon.condition_phrase",
                                     "multicon.descriptive_query", "multicon.hard_negative",
                                     "multicon.adaptive_decomposition"),
                build, "MultiConIR source documents")
