"""Sentences that take their subject from the text before them (irforge/check/referents.py)."""

from __future__ import annotations

import pytest

from irforge.check.referents import opening_anaphor


@pytest.mark.parametrize(("sentence", "word"), [
    ("They drill holes up to 24 mm in concrete and come with a depth stop.", "They"),
    ("It is lent with 10 sheets each of 40, 80 and 120 grit paper.", "It"),
    ("This keeps the blade cool on long cuts.", "This"),
    ("These come with a spare chain and a sharpening file.", "These"),
    ("Such ladders need a second person to foot them.", "Such"),
    ("The latter costs $5 a day and needs a deposit.", "The latter"),
    ("Its blade is 254 mm across.", "Its"),
    ("In 2023, they were lent 311 times.", "they"),
])
def test_a_sentence_opening_by_pointing_back_is_caught(sentence: str, word: str) -> None:
    assert opening_anaphor(sentence) == word


@pytest.mark.parametrize("sentence", [
    "For masonry, borrow one of the 3 corded SDS hammer drills.",
    "The library has 14 cordless drills from two makers.",
    "Each drill is lent with two batteries and a charger.",
    "Items returned late cost 50 cents a day.",  # "It" only as a whole word
    "Thistles grow along the fence.",
    "She studied at the Bauhaus before opening her own studio.",  # the person sought
    "After a long day in the workshop of the old mill, they rested.",  # a long opening phrase
    "",
])
def test_a_sentence_naming_its_own_subject_passes(sentence: str) -> None:
    assert opening_anaphor(sentence) is None
