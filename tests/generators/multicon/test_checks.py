from __future__ import annotations

import pytest

from irforge.generators.multicon.steps import (
    asked_terms,
    duplicate_phrases,
    key_terms,
    picked_phrase,
    render_instruction,
    salient_terms,
    validate_conditions,
    validate_descriptive,
    validate_hard_negative,
    validate_phrase,
)
from irforge.steps.failures import Rejected
from tests.generators.multicon.docs import NOVEL, NOVEL_CONDITIONS


def test_conditions_in_order_with_spans():
    located = validate_conditions(NOVEL_CONDITIONS, NOVEL, 3)
    assert [c.span.text for c in located] == NOVEL_CONDITIONS
    assert all(c.match == "exact" for c in located)
    assert located[0].span.start == 0


def test_conditions_fuzzy_copy_is_accepted_and_snapped():
    sentences = [NOVEL_CONDITIONS[0],
                 "The story follows a bee-keeper named Mara on a windswept island off the "
                 "north coast.",
                 NOVEL_CONDITIONS[2]]
    located = validate_conditions(sentences, NOVEL, 3, threshold=90)
    assert located[1].match == "fuzzy"
    assert located[1].span.text == NOVEL_CONDITIONS[1]


@pytest.mark.parametrize(("sentences", "reason"), [
    (NOVEL_CONDITIONS[:2], "expected 3 condition sentences, got 2"),
    ([*NOVEL_CONDITIONS[:2], "The story is set on the Moon in 2150."], "does not occur"),
    ([*NOVEL_CONDITIONS[:2], NOVEL_CONDITIONS[0]], "duplicates condition 1"),
    ([*NOVEL_CONDITIONS[:2], "The story follows a beekeeper"], "duplicates condition 2"),
    ([*NOVEL_CONDITIONS[:2], "Ines Varga"], "shorter than 3 words"),
])
def test_conditions_rejected_with_reason(sentences, reason):
    with pytest.raises(Rejected, match=reason):
        validate_conditions(sentences, NOVEL, 3)


def test_case_changed_copy_still_matches_fuzzily_but_duplicate_is_caught():
    sentences = [*NOVEL_CONDITIONS[:2], "the salt orchard is a 1987 NOVEL by ines varga."]
    with pytest.raises(Rejected, match="duplicates condition 1"):
        validate_conditions(sentences, NOVEL, 3, threshold=80)


def test_written_condition_phrase_is_short_and_not_the_sentence():
    assert validate_phrase(" 1. A 1987  novel by Ines Varga. ") == "A 1987 novel by Ines Varga"
    with pytest.raises(Rejected, match="needs at least 2"):
        validate_phrase("Novel")
    with pytest.raises(Rejected, match="not the sentence"):  # a copied sentence is no phrase
        validate_phrase(NOVEL_CONDITIONS[1])


@pytest.mark.parametrize(("phrase", "reason"), [
    # compound conditions a capable model wrote (run 7): several facts, one condition each
    ("7-day tool loan renewable twice by phone or email", "over 8: a search condition"),
    ("drills 24 mm concrete holes, depth stop, dust extraction", "state one fact"),
    ("no tower scaffold; Harbour Mutual covers 6 m ladders", "state one fact"),
    # a condition without a subject of its own
    ("They drill 24 mm holes in concrete", "opens with 'They': say what it is about"),
    ("It is lent with grit sheets", "opens with 'It'"),
])
def test_a_condition_phrase_is_one_fact_with_its_own_subject(phrase, reason):
    with pytest.raises(Rejected, match=reason):
        validate_phrase(phrase)


@pytest.mark.parametrize("phrase", ["7-day tool loans", "renewable twice by phone or email",
                                    "SDS hammer drills for 24 mm holes"])
def test_one_fact_of_a_compound_sentence_is_a_condition(phrase):
    assert validate_phrase(phrase) == phrase


def test_picked_condition_lists_key_terms_in_sentence_order():
    sentence = "It was first published in 2009 by Greyfell Press."
    assert key_terms(sentence)[:2] == ("Greyfell Press", "2009")
    assert picked_phrase(sentence, ["Greyfell Press", "published", "2009"]) == (
        "published 2009 Greyfell Press")
    with pytest.raises(Rejected, match="not key terms"):
        picked_phrase(sentence, ["Oslo", "2009"])
    with pytest.raises(Rejected, match="at least 2 distinct"):
        picked_phrase(sentence, ["2009", "2009"])


def test_repeated_conditions_are_rejected():
    assert duplicate_phrases(["A 1987 novel", "about a beekeeper"]) == []
    assert duplicate_phrases(["A 1987 novel", "a 1987 novel."]) == [
        "condition 2 repeats condition 1: 'a 1987 novel.'"]


def test_substitution_changes_a_term_the_condition_asks_for():
    sentence = "It was first published in 2009 by Greyfell Press."
    assert asked_terms(sentence, "published 2009") == ("2009", "published")
    assert asked_terms(sentence, "an unrelated phrase") == key_terms(sentence)


def test_render_instruction_numbers_the_conditions():
    text = render_instruction("Find a book that meets these conditions:",
                              ["A 1987 novel.", "About a beekeeper"])
    assert text == "Find a book that meets these conditions: 1. A 1987 novel. 2. About a beekeeper."


def test_descriptive_query_is_prose_not_a_list():
    assert validate_descriptive("A 1987 novel  about a beekeeper.", 2) == (
        "A 1987 novel about a beekeeper.")
    with pytest.raises(Rejected, match="list"):
        validate_descriptive("Find a book: 1. a 1987 novel 2. about a beekeeper", 2)
    with pytest.raises(Rejected, match="too short"):
        validate_descriptive("A novel", 2)


def test_hard_negative_must_differ_from_the_original():
    original = NOVEL_CONDITIONS[0]
    text, terms = validate_hard_negative(
        original, "The Salt Orchard is a 2004 novel by Ines Varga.", "modify")
    assert text.startswith("The Salt Orchard is a 2004") and terms == []
    with pytest.raises(Rejected, match="unchanged"):
        validate_hard_negative(original, "the salt orchard is a 1987 novel by Ines Varga",
                               "modify")
    with pytest.raises(Rejected, match="still contains"):
        validate_hard_negative(original, f"{original} But nobody read it.", "modify")


def test_keyword_strategy_keeps_key_terms():
    original = "She studied at the Bauhaus before opening her own studio in 1931."
    assert salient_terms(original) == ["Bauhaus", "1931"]
    kept = "She studied law in Leipzig, while her cousin went to the Bauhaus in 1931."
    text, terms = validate_hard_negative(original, kept, "keyword")
    assert text == kept and terms == ["Bauhaus", "1931"]
    with pytest.raises(Rejected, match=r"missing \['1931'\]"):
        validate_hard_negative(original, "She studied law while her cousin went to the Bauhaus.",
                               "keyword")
    with pytest.raises(Rejected, match="do not occur in the original"):
        validate_hard_negative(original, kept, "keyword", ["Leipzig"])
    with pytest.raises(Rejected, match="missing"):
        validate_hard_negative(original, "She studied law while her cousin went to the Bauhaus "
                                         "in 1931.", "keyword", ["studio"])


def test_keyword_strategy_needs_some_key_term():
    original = "the patient felt better after resting at home."
    with pytest.raises(Rejected, match="at least one key term"):
        validate_hard_negative(original, "the patient felt worse after a walk outside.",
                               "keyword")


def test_hard_negative_must_rewrite_the_sentence_not_replace_it():
    original = "It follows a beekeeper named Mara on a windswept island off the northern coast."
    with pytest.raises(Rejected, match="shares under 20%"):
        validate_hard_negative(original, "The heroine spends her summers repairing clocks.",
                               "modify")
    text, _ = validate_hard_negative(original, "It follows a glassblower named Mara in a port.",
                                     "modify")
    assert text.startswith("It follows a glassblower")
