"""MultiConIR as a :class:`~irforge.steps.method.Method` (docs/multicon.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from irforge.steps.method import Built, Inputs, Method, QueryMethodConfig
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
    domains: Path | None = Field(None, description="YAML file defining extra domains")
    conditions: Path | None = Field(None, description="JSONL of condition sentences chosen "
                                    "beforehand ({doc_id, conditions})")

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, value: str | None) -> str | None:
        from irforge.generators.multicon.domains import STRATEGIES

        if value is not None and value not in STRATEGIES:
            raise ValueError(f"unknown strategy {value!r}; use one of {STRATEGIES}")
        return value

    @model_validator(mode="after")
    def _known_domain(self) -> Config:
        """A named domain exists (built in or in ``domains``): an unknown one is a usage error
        before any work (``derived`` is made from the corpus during the build)."""
        if self.domain != "derived":
            from irforge.generators.multicon.domains import get_domain, load_domains

            get_domain(self.domain, load_domains(self.domains) if self.domains else {})
        return self

    def generator_config(self, domain: Any) -> Any:
        """The generator's ``MulticonConfig`` for this config and a chosen domain."""
        from irforge.generators.multicon.build import MulticonConfig

        return MulticonConfig(domain=domain, n=self.n, strategy=self.strategy,
                              pad_to=self.pad_to, seed=self.seed, threshold=self.threshold,
                              adaptive=self.adaptive, language=self.language,
                              phrases=self.phrases)


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Choose the source documents (the selector: ``limit`` documents with ``n`` conditions),
    derive the domain from a sample of the corpus, build and write (``build_multicon``); the
    report is ``(domain, counts)``."""
    from irforge.corpus.sources import domain_sample
    from irforge.generators.multicon.folder import (
        build_multicon,
        choose_domain,
        read_given_conditions,
    )
    from irforge.generators.sources import chosen_documents, selection_table

    given = read_given_conditions(config.conditions) if config.conditions is not None else None
    corpus = inputs.documents()
    docs, selection = chosen_documents(corpus, config.n, config.limit, config.seed)
    domain = choose_domain(config.domain, domain_sample(corpus, seed=config.seed), config.seed,
                           config.domains)
    counts, kept = build_multicon(runner, docs, config.generator_config(domain),
                                  str(inputs.corpus), given, selection_table(selection))
    return Built(kept, counts, report=(domain, counts))


METHOD = Method("multicon", Config, ("multicon.conditions", "multicon.condition_phrase",
                                     "multicon.descriptive_query", "multicon.hard_negative",
                                     "multicon.adaptive_decomposition"),
                build, "MultiConIR source documents")
