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
    taxonomy: str = Field("derived", description="'derived' (a capable model names the "
                          "categories over a sample of documents; the small model: term "
                          "clusters), 'lexical' (term clusters), 'disastir' or a YAML file")
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

    plan = prepare(config, inputs, runner)
    run = build_intents(runner, plan.docs, plan.intents, plan.taxonomy, config.per_task,
                        config.seed, config.needs, seeds=plan.seeds,
                        keep_generated=config.keep_generated_passages)
    return Built(int(run.counts["queries"]), dict(run.counts), report=(plan.taxonomy, run))


def estimate(runner: BuildRunner, config: Config, inputs: Inputs) -> Any:
    """``(taxonomy, run)`` of a dry run: the plan and its estimate, nothing sent or written.
    A taxonomy the model would name counts its one request; the plan uses the term
    clusters in its place."""
    from irforge.generators.intents import build_intents
    from irforge.generators.intents.build import source_docs
    from irforge.generators.intents.model_taxonomy import estimate_request
    from irforge.generators.intents.taxonomy import MODEL_ESTIMATE
    from irforge.generators.run_summary import added_estimates

    plan = prepare(config, inputs, runner, dry_run=True)
    run = build_intents(runner, plan.docs, plan.intents, plan.taxonomy, config.per_task,
                        config.seed, config.needs, dry_run=True, seeds=plan.seeds)
    if plan.taxonomy.derivation == MODEL_ESTIMATE:
        run.estimate = added_estimates(run.estimate, estimate_request(
            runner.engine, source_docs(plan.docs), config.seed))
    return plan.taxonomy, run


@dataclass(frozen=True)
class Prepared:
    """What a build reads: the corpus, the intents in its query style, the taxonomy
    (cut to the chosen categories) and the seed passages (None: every source passage)."""

    docs: list[Any]
    intents: list[Any]
    taxonomy: Any
    seeds: list[Any] | None


def prepare(config: Config, inputs: Inputs, runner: BuildRunner | None = None,
            dry_run: bool = False) -> Prepared:
    """The corpus's documents, the chosen intents, the taxonomy and the seed passages.
    ``taxonomy: derived`` with a capable model asks ``runner``'s model for the categories
    (a dry run plans with the term clusters instead, sending nothing)."""
    from dataclasses import replace

    from irforge.core.errors import IrforgeError
    from irforge.generators.intents import load_intents, select_intents
    from irforge.generators.intents.build import source_docs
    from irforge.generators.intents.model_taxonomy import derive_with_model
    from irforge.generators.intents.styles import with_style
    from irforge.generators.intents.taxonomy import DERIVED, MODEL_ESTIMATE, choose_taxonomy
    from irforge.llm.profile import is_capable

    docs = inputs.documents()
    chosen = with_style(config.query_style, select_intents(load_intents(config.intents_file),
                                                         list(config.intents)))
    by_model = config.taxonomy == DERIVED and runner is not None and is_capable(runner.engine)
    try:
        if by_model and not dry_run:
            assert runner is not None
            taxonomy = derive_with_model(runner, source_docs(docs), config.seed)
        else:
            taxonomy = choose_taxonomy(config.taxonomy, source_docs(docs), config.seed)
            if by_model:
                taxonomy = replace(taxonomy, derivation=MODEL_ESTIMATE)
        taxonomy = taxonomy.only(config.categories)
    except ValueError as exc:
        raise IrforgeError(f"{exc} (set taxonomy: lexical, disastir or a taxonomy YAML file; "
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


METHOD = Method("intents", Config, ("intents.taxonomy", "intents.plan", "intents.needs",
                                   "intents.query"), build,
                "intent queries", estimate)
