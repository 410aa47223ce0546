"""MultiConIR outputs made valid by construction: condition ids, key-term substitutions,
grounded condition phrases; with the known-bad outputs each check must keep rejecting."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from irforge.core.records import Doc
from irforge.generators.multicon import MulticonConfig, generate, get_domain
from irforge.generators.multicon.steps import (
    candidate_sentences,
    chosen_conditions,
    key_terms,
    substituted,
    substitution_model,
    ungrounded_phrases,
    validate_hard_negative,
)
from irforge.steps.failures import Rejected
from tests.generators.multicon.docs import NOVEL, NOVEL_CONDITION_IDS, NOVEL_CONDITIONS
from tests.generators.multicon.test_pipeline import CannedEngine, answers


def test_condition_ids_map_to_the_documents_own_sentences_in_order():
    located = chosen_conditions(NOVEL, [5, 1, 2], 3)
    assert [c.span.text for c in located] == NOVEL_CONDITIONS
    assert all(NOVEL[c.span.start:c.span.end] == c.span.text for c in located)
    assert candidate_sentences(NOVEL)[4].text == NOVEL_CONDITIONS[2]
    with pytest.raises(Rejected, match="expected 3"):
        chosen_conditions(NOVEL, [1, 2], 3)


def test_key_terms_are_names_numbers_then_content_words():
    terms = key_terms("It was first published in 2009 by Greyfell Press.")
    assert terms[:2] == ("Greyfell Press", "2009")
    assert "It" not in terms and "was" not in terms


@pytest.mark.parametrize(("term", "replacement", "reason"), [
    ("2009", "", "empty"),
    ("2009", "2009", "keeps the term"),
    ("Greyfell Press", "the Greyfell Press imprint", "keeps the term"),
    ("2009", "1971 long before the press had even been founded", "longer than"),
    ("2009", "Oslo", "must be replaced by a number"),
    ("Greyfell Press", "2", "must be replaced by a name"),
    ("Greyfell Press", "Oslo", "repeats the prompt's example"),
])
def test_known_bad_substitutions_are_rejected(term, replacement, reason):
    example = 'Answer: {"term": "Lisbon", "replacement": "Oslo"}'
    sentence = "It was first published in 2009 by Greyfell Press."
    with pytest.raises(Rejected, match=reason):
        substituted(sentence, term, replacement, example, sentence)


def test_a_substitution_outside_the_enumerated_terms_is_invalid():
    model = substitution_model(key_terms("It was first published in 2009 by Greyfell Press."))
    with pytest.raises(ValidationError):
        model.model_validate({"term": "Harbour Press", "replacement": "x"})
    value = model.model_validate({"term": "2009", "replacement": "1971"})
    new = substituted("It was first published in 2009 by Greyfell Press.", value.term,
                      value.replacement)
    assert new == "It was first published in 1971 by Greyfell Press."
    validate_hard_negative("It was first published in 2009 by Greyfell Press.", new, "modify")


def test_condition_phrases_must_share_a_word_with_their_sentence():
    sentences = NOVEL_CONDITIONS[:2]
    assert ungrounded_phrases(["1987 novel by Varga", "beekeeper on an island"], sentences) == []
    bad = ungrounded_phrases(["InstructionQuery2", "beekeeper on an island"], sentences)
    assert bad == ["condition 1 'InstructionQuery2' shares no content word with sentence 1"]


def test_substitute_strategy_builds_every_hard_negative_document():
    # only terms the query's condition phrase names may change (PHRASES of test_pipeline)
    replacements = {"1987": "2004", "beekeeper": "glassblower", "Harbour Prize": "Tidewater Medal"}

    offered: list[str] = []

    def substitute(item):
        offered.extend(item["terms"])
        term = next(t for t in item["terms"] if t in replacements)
        return {"term": term, "replacement": replacements[term]}

    canned = {**answers(), "multicon.hard_negative_substitute": substitute}
    engine = CannedEngine(canned)
    config = MulticonConfig(domain=get_domain("books"), n=3, strategy="substitute")
    out = generate([Doc("salt", NOVEL, title="The Salt Orchard")], engine, config)
    assert [d.doc_id for d in out.docs] == ["salt-pos", "salt-hn2", "salt-hn1", "salt-hn0"]
    zero = next(d for d in out.docs if d.doc_id == "salt-hn0")
    assert "The Salt Orchard is a 2004 novel by Ines Varga." in zero.text
    assert "won the Tidewater Medal for debut fiction in 1988" in zero.text
    assert "windswept" not in offered and "Mara" not in offered
    assert NOVEL_CONDITION_IDS == [1, 2, 5]
