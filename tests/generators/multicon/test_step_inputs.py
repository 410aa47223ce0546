"""What MultiConIR's condition step shows a model: hints that fit the document, and a
bounded, deterministic list of numbered units whose ids its output budget covers."""

from __future__ import annotations

import json

from irforge.core.records import Doc
from irforge.generators.domain_profile import derive_domain
from irforge.generators.multicon.domains import BUILTIN_DOMAINS, Domain, shown_features
from irforge.generators.multicon.steps import conditions_step
from irforge.generators.multicon.units import MAX_CANDIDATES, candidate_sentences
from irforge.prompts import get_template

DERIVED = Domain(name="derived", entity="document", corpus_terms=True,
                 features=("debian, package and install", "orchestra, violin and sonata"))
CONCERT = ("The orchestra opened with a violin sonata by a young composer. The hall seats "
           "two thousand listeners on three balconies.")


def test_a_derived_domain_shows_only_the_hints_the_document_contains() -> None:
    assert shown_features(DERIVED, CONCERT) == ["orchestra", "violin", "sonata"]
    assert shown_features(DERIVED, "The hall seats two thousand listeners.") == []
    docs = [Doc(str(i), text) for i, text in enumerate(
        [CONCERT, "Install the package with apt on Debian.", "Debian installs packages."] * 3)]
    assert derive_domain(docs).corpus_terms


def test_a_built_in_domains_kinds_of_fact_are_shown_as_declared() -> None:
    books = BUILTIN_DOMAINS["books"]
    assert shown_features(books, CONCERT) == list(books.features)


def test_the_conditions_prompt_shows_no_hint_from_another_topic() -> None:
    doc = Doc("concert", CONCERT + " " + " ".join(
        f"Balcony {n} has {n * 40} seats and its own stair." for n in range(1, 4)))
    text = "\n".join(m["content"] for m in get_template("multicon.conditions").render(
        **conditions_step(DERIVED, 2).variables(doc)))
    assert "orchestra, violin, sonata" in text and "debian" not in text.lower()
    bare = Doc("hall", " ".join(f"Balcony {n} has {n * 40} seats and its own stair."
                                for n in range(1, 4)))
    text = "\n".join(m["content"] for m in get_template("multicon.conditions").render(
        **conditions_step(DERIVED, 2).variables(bare)))
    assert "for example" not in text and "Choose exactly 2 different sentences" in text


def long_document(sentences: int) -> str:
    return " ".join(f"Chapter {i} tells how the ferry number {i} crossed the bay at dawn."
                    for i in range(1, sentences + 1))


def test_a_long_document_gives_a_bounded_spread_deterministic_pick_list() -> None:
    book = long_document(1480)
    shown = candidate_sentences(book)
    assert len(shown) == MAX_CANDIDATES
    assert shown[0].text.startswith("Chapter 1 ") and shown[-1].text.startswith("Chapter 1456 ")
    assert [s.start for s in shown] == sorted(s.start for s in shown)
    candidate_sentences.cache_clear()
    assert candidate_sentences(book) == shown
    short = long_document(12)
    assert len(candidate_sentences(short)) == 12


def test_the_pick_steps_output_budget_covers_its_ids() -> None:
    step = conditions_step(DERIVED, 5)
    doc = Doc("book", long_document(1480))
    variables = step.variables(doc)
    assert len(variables["sentences"]) == MAX_CANDIDATES
    longest = json.dumps({"ids": list(range(MAX_CANDIDATES - 4, MAX_CANDIDATES + 1))})
    assert step.token_limit(doc) >= len(longest)  # a token is at least one character
    model = step.model_for(doc)
    assert model.model_validate_json(longest).ids[-1] == MAX_CANDIDATES
