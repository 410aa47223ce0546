"""Issue 33: names, numbers with units and fractions, dotted abbreviations extracted whole."""

from __future__ import annotations

import pytest

from irforge.corpus.entities import entities, entity_choices


def _texts(text: str) -> list[str]:
    return [entity.text for entity in entities(text)]


@pytest.mark.parametrize(("text", "whole", "not_split"), [
    ("Read the 18F Handbook before you start.", "18F Handbook", "F Handbook"),
    ("The U.S. Navy agreed.", "U.S. Navy", "U"),
    ("Add 1/2 cup of rice.", "1/2 cup", "1"),
    ("Add 1 1/2 tsp of salt.", "1 1/2 tsp", "1/2 tsp"),
    ("Stir in ½ cup of stock.", "½ cup", "½"),
    ("The drill takes 200 g and 18 V batteries.", "200 g", "200"),
    ("It installs Debian GNU/Linux in an hour.", "Debian GNU/Linux", "Debian GNU"),
    ("The Bank of England raised rates.", "Bank of England", "Bank"),
])
def test_things_are_extracted_whole(text: str, whole: str, not_split: str) -> None:
    found = _texts(text)
    assert whole in found and not_split not in found, found


def test_pronoun_i_and_sentence_openers_are_not_names() -> None:
    assert _texts("Select I agree to continue.") == []
    assert _texts("Please read it. Then Clara Voss signs.") == ["Clara Voss"]


def test_a_run_of_titles_is_not_one_name() -> None:
    run = ("Content Guide Accessibility Guide Brand Guide Code Review Guide Design Guide "
           "Engineering Guide")
    assert all(len(text) < 60 for text in _texts(f"See the {run} pages."))


def test_kinds_and_spans() -> None:
    text = "The Arden Bridge, opened in 1902, is 240 m long."
    found = entities(text)
    assert [(e.text, e.kind) for e in found] == [
        ("Arden Bridge", "name"), ("1902", "number"), ("240 m", "quantity")]
    assert all(text[e.start:e.end] == e.text for e in found)


def test_choices_are_distinct_filtered_and_capped() -> None:
    texts = ["Clara Voss met Lena Ortiz in 1902.", "Clara Voss left in 1903."]
    assert entity_choices(texts) == ("Clara Voss", "Lena Ortiz", "1902", "1903")
    assert entity_choices(texts, keep=lambda t: not t.isdigit(), limit=1) == ("Clara Voss",)
