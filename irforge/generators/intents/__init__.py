"""DisastIR-style intent-driven query generation: intents x categories, two-stage prompts."""

from __future__ import annotations

from irforge.core.lazy import lazy_exports

# public name -> the submodule defining it, imported on first use (irforge/core/lazy.py)
_EXPORTS = {
    "ChosenTaxonomy": "taxonomy",
    "IntentSpec": "config",
    "IntentsRun": "build",
    "Taxonomy": "config",
    "assign_categories": "plan",
    "build_intents": "build",
    "build_tasks": "plan",
    "choose_taxonomy": "taxonomy",
    "derive_taxonomy": "taxonomy",
    "load_intents": "config",
    "load_taxonomy": "config",
    "plan_queries": "plan",
    "sample_attributes": "plan",
    "select_intents": "config",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
