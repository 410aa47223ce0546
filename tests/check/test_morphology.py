"""Word forms the stemmer misses (irregular, derived, compounds) and contractions."""

from __future__ import annotations

import pytest

from irforge.check.morphology import derived_bases, irregular_bases, not_derived, roots
from irforge.check.text import function_contraction


@pytest.mark.parametrize(("form", "base"), [
    ("won", "win"), ("kept", "keep"), ("hung", "hang"), ("children", "child"),
    ("feet", "foot"), ("taught", "teach"), ("better", "good"), ("mice", "mouse"),
])
def test_irregular_forms_share_a_root_with_their_base(form, base):
    assert roots(form) & roots(base)


@pytest.mark.parametrize(("derived", "base"), [
    ("winner", "won"), ("learners", "learn"), ("lower", "low"), ("keeper", "kept"),
    ("baker", "bake"), ("bigger", "big"), ("earliest", "early"), ("arrestor", "arrester"),
])
def test_agent_nouns_and_comparatives_share_a_root_with_their_base(derived, base):
    assert roots(derived) & roots(base)


@pytest.mark.parametrize(("word", "other"), [
    ("corner", "corn"), ("letter", "let"), ("letters", "let"), ("forest", "for"),
    ("flower", "flow"), ("matter", "mat"), ("spoke", "speak"), ("ground", "grind"),
    ("water", "wat"), ("number", "numb"), ("left", "leave"),
])
def test_look_alikes_get_no_root_of_a_shorter_word(word, other):
    assert not roots(word) & roots(other)


def test_tables_are_data_without_duplicate_exceptions_of_real_forms():
    bases = irregular_bases()
    assert bases["won"] == "win" and len(bases) > 200
    assert "corner" in not_derived() and not derived_bases("corner")
    assert derived_bases("winner")[-1] == "win"


@pytest.mark.parametrize(("word", "expected"), [
    ("what's", True), ("can't", True), ("won't", True), ("isn't", True),
    ("handheld's", False), ("o'clock", False), ("rock'n'roll", False),
])
def test_contractions_of_function_words_only(word, expected):
    assert function_contraction(word) is expected
