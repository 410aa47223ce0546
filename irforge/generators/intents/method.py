"""DisastIR intent-driven queries as a :class:`~irforge.steps.method.Method`
(docs/intents.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from irforge.steps.method import Built, Inputs, Method, QueryMethodConfig
from irforge.steps.runner import BuildRunner


class Config(QueryMethodConfig):
    """``irforge build intents`` options and the recipe's ``methods.intents`` block."""

    intents: list[str] = Field(default_factory=lambda: ["QA", "FC"])
    per_task: int = Field(2, ge=1)
    taxonomy: str = "derived"
    intents_file: Path | None = None
    needs: int = Field(3, ge=1)
    seed: int = 0
    keep_generated_passages: bool = Field(False, description="add the LLM-written passages "
                                          "grounded in their seed passage to the corpus")


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Read the corpus, choose the taxonomy, build (``build_intents``); the report is
    ``(taxonomy, run)``."""
    from irforge.generators.intents import build_intents

    docs, chosen, taxonomy = _prepared(config, inputs)
    run = build_intents(runner, docs, chosen, taxonomy, config.per_task, config.seed,
                        config.needs, keep_generated=config.keep_generated_passages)
    return Built(int(run.counts["queries"]), dict(run.counts), report=(taxonomy, run))


def estimate(runner: BuildRunner, config: Config, inputs: Inputs) -> Any:
    """``(taxonomy, run)`` of a dry run: the plan and its estimate, nothing sent or written."""
    from irforge.generators.intents import build_intents

    docs, chosen, taxonomy = _prepared(config, inputs)
    return taxonomy, build_intents(runner, docs, chosen, taxonomy, config.per_task,
                                   config.seed, config.needs, dry_run=True)


def _prepared(config: Config, inputs: Inputs) -> tuple[list[Any], list[Any], Any]:
    """The corpus's documents, the chosen intents and the taxonomy."""
    from irforge.core.errors import IrforgeError
    from irforge.generators.intents import load_intents, select_intents
    from irforge.generators.intents.build import source_docs
    from irforge.generators.intents.taxonomy import choose_taxonomy

    docs = inputs.documents()
    chosen = select_intents(load_intents(config.intents_file), list(config.intents))
    try:
        taxonomy = choose_taxonomy(config.taxonomy, source_docs(docs), config.seed)
    except ValueError as exc:
        raise IrforgeError(f"{exc} (set taxonomy: disastir or a taxonomy YAML file)") from exc
    return docs, chosen, taxonomy


METHOD = Method("intents", Config, ("intents.plan", "intents.needs", "intents.query"), build,
                "intent queries", estimate)
