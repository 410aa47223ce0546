"""The taxonomy ``build intents`` uses when none is given: derived from the corpus.

DisastIR's categories are disaster types; a corpus about anything else has no passage in them.
So by default the categories are the corpus's own term clusters
(:func:`irforge.generators.domain_profile.term_clusters`): each category is named by its top
terms, keeps them as keywords, and its seed passages are the cluster's members, so every
category has at least one passage. ``--taxonomy disastir`` or a YAML file chooses instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.records import Doc
from irforge.generators.domain_profile import term_clusters
from irforge.generators.intents.config import NAMED_TAXONOMIES, Category, Taxonomy, load_taxonomy

DERIVED = "derived"


@dataclass(frozen=True)
class ChosenTaxonomy:
    """The taxonomy of one build and, when derived, each category's seed passages by key."""

    taxonomy: Taxonomy
    derived: bool = False
    pools: dict[str, list[str]] = field(default_factory=dict)

    def manifest(self) -> dict[str, Any]:
        """What the manifest records: name, how it was chosen, and each category."""
        return {"name": self.taxonomy.name, "derived": self.derived,
                "categories": [{"name": c.name, "short": c.short, "keywords": list(c.keywords),
                                **({"passages": len(self.pools.get(c.key, ()))}
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
                              self.derived, {k: v for k, v in self.pools.items() if k in keys})

    def describe(self) -> str:
        """Lines for the console: one per category."""
        how = "derived from the corpus (term clusters)" if self.derived else "given"
        lines = [f"taxonomy {self.taxonomy.name!r}, {how}:"]
        for c in self.taxonomy.categories:
            size = f" ({len(self.pools.get(c.key, ()))} passages)" if self.derived else ""
            lines.append(f"  {c.key}: {c.name}{size} - {', '.join(c.keywords[:6])}")
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
    return ChosenTaxonomy(Taxonomy(name=DERIVED, categories=categories), True, pools)


def choose_taxonomy(option: Path | str | None, docs: Sequence[Doc],
                    seed: int = 0) -> ChosenTaxonomy:
    """``--taxonomy``: None or ``derived`` derives one; a shipped name or a YAML file loads."""
    if option is None or str(option) == DERIVED:
        return derive_taxonomy(docs, seed)
    if str(option) in NAMED_TAXONOMIES:
        return ChosenTaxonomy(load_taxonomy(str(option)))
    return ChosenTaxonomy(load_taxonomy(Path(option)))
