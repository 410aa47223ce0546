"""DisastIR-style intent-driven query generation: intents x categories, two-stage prompts."""

from __future__ import annotations

from irforge.generators.intents.build import IntentsRun, build_intents
from irforge.generators.intents.config import (
    IntentSpec,
    Taxonomy,
    load_intents,
    load_taxonomy,
    select_intents,
)
from irforge.generators.intents.plan import (
    assign_categories,
    build_tasks,
    plan_queries,
    sample_attributes,
)
from irforge.generators.intents.taxonomy import ChosenTaxonomy, choose_taxonomy, derive_taxonomy

__all__ = [
    "ChosenTaxonomy",
    "IntentSpec",
    "IntentsRun",
    "Taxonomy",
    "assign_categories",
    "build_intents",
    "build_tasks",
    "choose_taxonomy",
    "derive_taxonomy",
    "load_intents",
    "load_taxonomy",
    "plan_queries",
    "sample_attributes",
    "select_intents",
]
