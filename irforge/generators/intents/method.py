"""DisastIR intent-driven queries as a :class:`~irforge.steps.method.Method`
(docs/intents.md)."""

from __future__ import annotations

from pathlib import Path

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


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Read the corpus, choose the taxonomy, build (``build_intents``)."""
    from irforge.core import beir
    from irforge.core.errors import IrforgeError
    from irforge.generators.intents import build_intents, load_intents, select_intents
    from irforge.generators.intents.build import source_docs
    from irforge.generators.intents.taxonomy import choose_taxonomy

    docs = list(beir.read_corpus(inputs.corpus))
    chosen = select_intents(load_intents(config.intents_file), list(config.intents))
    try:
        taxonomy = choose_taxonomy(config.taxonomy, source_docs(docs), config.seed)
    except ValueError as exc:
        raise IrforgeError(f"{exc} (set taxonomy: disastir or a taxonomy YAML file)") from exc
    run = build_intents(runner.bench, runner.engine, docs, chosen, taxonomy, config.per_task,
                        config.seed, config.needs, runner=runner)
    return Built(int(run.counts["queries"]), dict(run.counts))


METHOD = Method("intents", Config, ("intents.plan", "intents.needs", "intents.query"), build,
                "intent queries")
