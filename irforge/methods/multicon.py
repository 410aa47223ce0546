"""MultiConIR as a :class:`~irforge.methods.contract.Method` (docs/multicon.md)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from irforge.methods.contract import Built, Inputs, Method, QueryMethodConfig
from irforge.steps.runner import BuildRunner


class Config(QueryMethodConfig):
    """``irforge build multicon`` options and the recipe's ``methods.multicon`` block."""

    n: int = Field(3, ge=2, description="conditions per document (paper: 10)")
    limit: int | None = Field(3, ge=1, description="documents used")
    domain: str = "derived"
    phrases: Literal["write", "pick"] = "write"
    strategy: str | None = None
    pad_to: int | None = Field(None, ge=1)
    seed: int = 0
    threshold: float = Field(90.0, gt=0, le=100)
    adaptive: bool = False
    language: str | None = None

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, value: str | None) -> str | None:
        from irforge.generators.multicon.domains import STRATEGIES

        if value is not None and value not in STRATEGIES:
            raise ValueError(f"unknown strategy {value!r}; use one of {STRATEGIES}")
        return value

    def generator_config(self, domain: Any) -> Any:
        """The generator's ``MulticonConfig`` for this config and a chosen domain."""
        from irforge.generators.multicon.build import MulticonConfig

        return MulticonConfig(domain=domain, n=self.n, strategy=self.strategy,
                              pad_to=self.pad_to, seed=self.seed, threshold=self.threshold,
                              adaptive=self.adaptive, language=self.language,
                              phrases=self.phrases)


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Read the corpus, pick the domain, build and write (``build_multicon``)."""
    from irforge.core import beir
    from irforge.generators.multicon.domains import get_domain
    from irforge.generators.multicon.folder import build_multicon, derived_domain

    docs = list(beir.read_corpus(inputs.corpus))[:config.limit]  # every row validated first
    domain = (derived_domain(docs, config.seed) if config.domain == "derived"
              else get_domain(config.domain, {}))
    counts = build_multicon(runner.bench.root, docs, config.generator_config(domain),
                            runner.engine,
                            source=str(inputs.corpus), runner=runner)
    return Built(counts["sources"], counts)


METHOD = Method("multicon", Config, ("multicon.conditions", "multicon.condition_phrase",
                                     "multicon.descriptive_query", "multicon.hard_negative",
                                     "multicon.adaptive_decomposition"),
                build, "MultiConIR source documents")
