"""The taxonomy ``build intents`` uses when none is given: derived from the corpus.

DisastIR's categories are disaster types; a corpus about anything else has no passage in them.
So by default (``derived``) the categories come from the corpus: with a capable model, the
model names them once over a sample of documents (``model_taxonomy.py``); with the small
model (or ``lexical``), they are the corpus's term clusters
(:func:`irforge.generators.domain_profile.term_clusters`): each category is named by its top
terms, keeps them as keywords, and its seed passages are the cluster's members. Either way
every category has at least one passage. ``disastir`` or a YAML file chooses instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.records import Doc
from irforge.generators.domain_profile import term_clusters
from irforge.generators.intents.config import (
    DERIVED,
    LEXICAL,
    NAMED_TAXONOMIES,
    Category,
    Taxonomy,
    load_taxonomy,
)

#: the derivations' names in the manifest: the model's categories, and a dry run's stand-in
#: for them (the term clusters, planned while the model's request is only counted)
MODEL, MODEL_ESTIMATE = "model", "model-estimate"
#: how a taxonomy was derived, as the manifest and the console say it
DERIVATIONS = {LEXICAL: "derived from the corpus (term clusters)",
               MODEL: "derived from the corpus by the model (categories over a sample of "
                      "documents)",
               MODEL_ESTIMATE: "to be named by the model when it builds (1 request; this "
                               "estimate plans with the term clusters below)"}


@dataclass(frozen=True)
class ChosenTaxonomy:
    """The taxonomy of one build and, when derived, how (a :data:`DERIVATIONS` key), each
    category's seed passages by key and what the derivation records (the model's sample)."""

    taxonomy: Taxonomy
    derivation: str = ""  # "" for a given taxonomy
    pools: dict[str, list[str]] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def derived(self) -> bool:
        return bool(self.derivation)

    def manifest(self) -> dict[str, Any]:
        """What the manifest records: name, how it was chosen, and each category."""
        return {"name": self.taxonomy.name, "derived": self.derived,
                "derivation": self.derivation or "given", **self.details,
                "categories": [{"name": c.name, "short": c.short, "keywords": list(c.keywords),
                                **({"description": c.description,
                                    "passages": len(self.pools.get(c.key, ()))}
                                   if self.derived else {})}
                               for c in self.taxonomy.categories]}

    def only(self, keys: Sequence[str]) -> ChosenTaxonomy:
        """The taxonomy cut to the categories whose short ids are ``keys`` (all when empty);
        an unknown key is a ValueError naming the known ones."""
        if not keys:
            return self
        known = [c.key for c in self.taxonomy.categories]
        unknown = [key for key in keys if key not in known]
        if unknown:
            raise ValueError(f"unknown categories {unknown} of taxonomy "
                             f"{self.taxonomy.name!r}; known: {known}")
        kept = [c for c in self.taxonomy.categories if c.key in keys]
        return ChosenTaxonomy(self.taxonomy.model_copy(update={"categories": kept}),
                              self.derivation,
                              {k: v for k, v in self.pools.items() if k in keys}, self.details)

    def describe(self) -> str:
        """Lines for the console: one per category."""
        how = DERIVATIONS.get(self.derivation, "given")
        lines = [f"taxonomy {self.taxonomy.name!r}, {how}:"]
        for c in self.taxonomy.categories:
            size = f" ({len(self.pools.get(c.key, ()))} passages)" if self.derived else ""
            about = f" - {c.description}" if self.derivation == MODEL else ""
            lines.append(f"  {c.key}: {c.name}{size}{about} - {', '.join(c.keywords[:6])}")
        return "\n".join(lines)


def derive_taxonomy(docs: Sequence[Doc], seed: int = 0,
                    max_categories: int | None = None) -> ChosenTaxonomy:
    """Categories from the corpus's term clusters; raises ``ValueError`` without passages."""
    clusters = term_clusters(docs, seed, k=max_categories)
    if not clusters:
        raise ValueError("the corpus has no passage to derive a taxonomy from")
    categories: list[Category] = []
    pools: dict[str, list[str]] = {}
    for number, cluster in enumerate(clusters, start=1):
        short = f"C{number}"
        name = cluster.label if cluster.terms else "all passages"
        categories.append(Category(
            name=name, short=short, keywords=list(cluster.terms),
            description="passages about " + (", ".join(cluster.terms[:4]) or "anything")))
        pools[short] = list(cluster.doc_ids)
    return ChosenTaxonomy(Taxonomy(name=DERIVED, categories=categories), LEXICAL, pools)


def choose_taxonomy(option: Path | str | None, docs: Sequence[Doc],
                    seed: int = 0) -> ChosenTaxonomy:
    """``--taxonomy`` without a model: None, ``derived`` or ``lexical`` derives term clusters
    (the model's derivation is :func:`model_taxonomy.derive_with_model`); a shipped name or a
    YAML file loads."""
    if option is None or str(option) in (DERIVED, LEXICAL):
        return derive_taxonomy(docs, seed)
    if str(option) in NAMED_TAXONOMIES:
        return ChosenTaxonomy(load_taxonomy(str(option)))
    return ChosenTaxonomy(load_taxonomy(Path(option)))
