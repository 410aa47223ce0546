"""Corpus profiles: term clusters and a MultiConIR domain derived from the corpus itself."""

from __future__ import annotations

import pytest

from irforge.core.records import Doc
from irforge.generators.domain_profile import cluster_count, derive_domain, term_clusters, tokens

BAKING = [Doc(f"b{i}", text) for i, text in enumerate([
    "Knead the dough until the gluten stretches; gluten traps gas in the dough.",
    "Gluten develops while kneading dough; wholemeal dough tears, its gluten is weak.",
    "A sourdough starter holds yeast; feed the starter flour and water daily.",
    "Feed the sourdough starter twice a day; a hungry starter smells of acetone.",
    "Bake the loaf in a hot oven with steam; the oven spring lifts the loaf.",
    "Steam in the oven keeps the crust soft; the loaf expands before the crust sets.",
])]


def test_clusters_group_passages_by_shared_terms_and_cover_each_once() -> None:
    clusters = term_clusters(BAKING, seed=0, k=3)
    assert len(clusters) == 3 and all(cluster.doc_ids for cluster in clusters)
    members = sorted(doc_id for cluster in clusters for doc_id in cluster.doc_ids)
    assert members == sorted(doc.doc_id for doc in BAKING)
    groups = {frozenset(cluster.doc_ids) for cluster in clusters}
    assert groups == {frozenset({"b0", "b1"}), frozenset({"b2", "b3"}), frozenset({"b4", "b5"})}
    labels = [cluster.label for cluster in clusters]
    assert len(set(labels)) == 3
    by_docs = {frozenset(c.doc_ids): set(c.terms) for c in clusters}
    assert {"gluten", "dough"} <= by_docs[frozenset({"b0", "b1"})]
    assert term_clusters(BAKING, seed=0, k=3) == clusters  # seeded: same answer every run


def test_cluster_count_grows_slowly_and_is_capped() -> None:
    assert [cluster_count(n) for n in (1, 8, 18, 100, 10_000)] == [1, 2, 3, 7, 8]


def test_derived_domain_uses_corpus_terms_not_a_built_in_domain() -> None:
    domain = derive_domain(BAKING, seed=0)
    assert domain.entity == "document" and domain.name == "derived"
    words = " ".join(domain.features)
    assert "gluten" in words and "starter" in words and "book" not in words
    with pytest.raises(ValueError, match="--domain"):
        derive_domain([Doc("x", "the and of it")])


def test_a_word_with_an_accent_is_one_term_not_its_ascii_prefix() -> None:
    # a relay worker saw "caf" among a derived domain's features: the term was cut at "é"
    assert tokens("The repair café meets at the Rathaus; naïve déjà-vu") == [
        "repair", "café", "meets", "rathaus", "naïve", "déjà-vu"]
