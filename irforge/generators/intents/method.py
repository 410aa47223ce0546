"""DisastIR intent-driven queries as a :class:`~irforge.steps.method.Method`
(docs/intents.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

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
    categories: list[str] = Field(default_factory=list, description="only these categories "
                                  "of the taxonomy, by short id (empty: all)")
    seed_prefixes: list[str] = Field(default_factory=list, description="seed queries only "
                                     "from passages whose id starts with one of these "
                                     "(empty: every passage)")
    query_style: str = Field("default", description="how queries are asked for: 'default' "
                             "or 'small-model' (a picked seed sentence, no worked example, "
                             "the first declared form)")

    @field_validator("query_style")
    @classmethod
    def _known_style(cls, value: str) -> str:
        from irforge.generators.intents.styles import STYLES

        if value not in STYLES:
            raise ValueError(f"unknown query style {value!r}; known: {sorted(STYLES)}")
        return value


def build(runner: BuildRunner, config: Config, inputs: Inputs) -> Built:
    """Read the corpus, choose the taxonomy, build (``build_intents``); the report is
    ``(taxonomy, run)``."""
    from irforge.generators.intents import build_intents

    plan = prepare(config, inputs)
    run = build_intents(runner, plan.docs, plan.intents, plan.taxonomy, config.per_task,
                        config.seed, config.needs, seeds=plan.seeds,
                        keep_generated=config.keep_generated_passages)
    return Built(int(run.counts["queries"]), dict(run.counts), report=(plan.taxonomy, run))


def estimate(runner: BuildRunner, config: Config, inputs: Inputs) -> Any:
    """``(taxonomy, run)`` of a dry run: the plan and its estimate, nothing sent or written."""
    from irforge.generators.intents import build_intents

    plan = prepare(config, inputs)
    return plan.taxonomy, build_intents(runner, plan.docs, plan.intents, plan.taxonomy,
                                        config.per_task, config.seed, config.needs,
                                        dry_run=True, seeds=plan.seeds)


@dataclass(frozen=True)
class Prepared:
    """What a build reads: the corpus, the intents in its query style, the taxonomy
    (cut to the chosen categories) and the seed passages (None: every source passage)."""

    docs: list[Any]
    intents: list[Any]
    taxonomy: Any
    seeds: list[Any] | None


def prepare(config: Config, inputs: Inputs) -> Prepared:
    """The corpus's documents, the chosen intents, the taxonomy and the seed passages."""
    from irforge.core.errors import IrforgeError
    from irforge.generators.intents import load_intents, select_intents
    from irforge.generators.intents.build import source_docs
    from irforge.generators.intents.styles import with_style
    from irforge.generators.intents.taxonomy import choose_taxonomy

    docs = inputs.documents()
    chosen = with_style(config.query_style, select_intents(load_intents(config.intents_file),
                                                         list(config.intents)))
    try:
        taxonomy = choose_taxonomy(config.taxonomy, source_docs(docs), config.seed)
        taxonomy = taxonomy.only(config.categories)
    except ValueError as exc:
        raise IrforgeError(f"{exc} (set taxonomy: disastir or a taxonomy YAML file; "
                           "categories: short ids of its categories)") from exc
    return Prepared(docs, chosen, taxonomy, _seeds(docs, config.seed_prefixes))


def _seeds(docs: list[Any], prefixes: list[str]) -> list[Any] | None:
    """The passages whose id starts with one of ``prefixes`` (None without prefixes); none
    matching is a usage error naming the prefixes."""
    from irforge.core.errors import IrforgeError

    if not prefixes:
        return None
    seeds = [doc for doc in docs if doc.doc_id.startswith(tuple(prefixes))]
    if not seeds:
        raise IrforgeError(f"seed_prefixes {prefixes}: no passage id of the corpus starts "
                           f"with one of them (ids look like {docs[0].doc_id!r})"
                           if docs else "the corpus has no passage")
    return seeds


METHOD = Method("intents", Config, ("intents.plan", "intents.needs", "intents.query"), build,
                "intent queries", estimate)
