from __future__ import annotations

import pytest

from irforge.core.errors import FormatError, IrforgeError
from irforge.generators.multicon.domains import BUILTIN_DOMAINS, get_domain, load_domains


def test_five_paper_domains_ship_built_in_with_their_strategy():
    assert sorted(BUILTIN_DOMAINS) == ["books", "legal", "medical", "movies", "people"]
    assert get_domain("people").strategy == "keyword"
    assert {get_domain(d).strategy for d in ("books", "movies", "medical", "legal")} == {"modify"}
    assert "drug allergies" in get_domain("medical").features
    assert get_domain("Medical-Cases").name == "medical"
    assert get_domain("books").instruction_text == "Find a book that meets these conditions:"
    assert get_domain("people").instruction_text.startswith("Find a person who")


def test_user_domain_from_yaml(tmp_path):
    path = tmp_path / "domains.yaml"
    path.write_text(
        "domains:\n"
        "  recipes:\n"
        "    entity: recipe\n"
        "    features: [cuisine, main ingredients, cooking time]\n"
        "    strategy: keyword\n"
        "    descriptive_examples: [A quick Thai curry with tofu.]\n"
        "    hard_negative_examples:\n"
        "      - {query: a vegan dish, sentence: It uses no animal products.,"
        " modified: It uses butter and cream.}\n", encoding="utf-8")
    domains = load_domains(path)
    recipes = get_domain("recipes", domains)
    assert recipes.entity == "recipe" and recipes.strategy == "keyword"
    assert recipes.instruction_text == "Find a recipe that meets these conditions:"
    assert recipes.hard_negative_examples[0].modified == "It uses butter and cream."
    assert get_domain("books", domains).name == "books"


@pytest.mark.parametrize(("text", "field"), [
    ("domains:\n  recipes:\n    entity: recipe\n", "domains.recipes.features"),
    ("domains:\n  recipes:\n    entity: recipe\n    features: [a]\n    strategy: swap\n",
     "domains.recipes.strategy"),
    ("domains:\n  recipes:\n    entity: recipe\n    features: [a]\n    colour: red\n",
     "domains.recipes.colour"),
    ("recipes: {}\n", "domains"),
])
def test_bad_domain_file_names_the_field(tmp_path, text, field):
    path = tmp_path / "domains.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as info:
        load_domains(path)
    assert info.value.problem.field == field
    assert str(path) in str(info.value)


def test_unknown_domain_lists_the_known_ones(tmp_path):
    with pytest.raises(IrforgeError, match="known: books, legal, medical, movies, people"):
        get_domain("recipes")
    with pytest.raises(FormatError, match="not found"):
        load_domains(tmp_path / "missing.yaml")
