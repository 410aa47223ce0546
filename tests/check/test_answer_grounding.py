"""grounding.answer: a logical answer's names, numbers and content words in its passages."""

from __future__ import annotations

import pytest

from irforge.check.aliases import Aliases
from irforge.check.answer_grounding import answer_problem, vacuous
from irforge.check.base import Case, Context, Finding
from irforge.check.suite import validate
from irforge.core.records import Doc, Query

GARDEN = Doc("garden", "In spring the garden shelf empties first. The library lends 2 petrol "
             "lawnmowers, a 600 W electric shredder and 12 spades. The petrol mowers are lent "
             "with 1 litre of fuel in a sealed can. The library refills them from a 20 litre "
             "drum kept outside the building.", "Garden tools")
DPKG = Doc("dpkg", "This will remove the icewm package (-r is short for -remove). Note that "
           "you give only the icewm for -remove, whereas -install requires the entire .deb "
           "filename. Some software is not packaged: you must build it from source yourself.",
           "Removing packages")
OTHER = Doc("other", "The workshop lends 3 diesel generators and a chainsaw to members.",
            "Workshop")
DOCS = {doc.doc_id: doc for doc in (GARDEN, DPKG, OTHER)}
# the model quoted the fuel sentences; the count "2" stands in the passage's second sentence
FUEL = ["The petrol mowers are lent with 1 litre of fuel in a sealed can.",
        "The library refills them from a 20 litre drum kept outside the building."]


def answer_findings(answer: str, doc: Doc, quotes: list[str], **meta: object) -> list[Finding]:
    evidence = [{"passage": 1, "doc_id": doc.doc_id, "text": text} for text in quotes]
    query = Query("q", "Which garden machines come with fuel in a sealed can?",
                  {"answer": answer, "evidence": evidence, **meta})
    case = Case(query, {"text": query.text}, positives=(doc,), source=doc)
    return [f for f in validate(case, Context(docs=DOCS), only=["grounding.answer"])
            if f.field == "answer"]


@pytest.mark.parametrize("answer", [
    "2 petrol lawnmowers",       # number from a passage sentence the evidence does not quote
    "the petrol lawnmowers (2)",  # reordered, the count in parentheses
    "petrol mower",               # inflected
])
def test_a_capable_answer_may_use_any_sentence_of_its_passage(answer: str) -> None:
    assert answer_findings(answer, GARDEN, FUEL) == []


def test_a_capable_answers_names_must_stand_in_its_evidence_sentences() -> None:
    # the passage (its title) holds the name, but the quoted fuel sentences do not show it;
    # an answer's opening capital marks a name ("Getting Started": a chapter title)
    found = answer_findings("Garden Tools", GARDEN, FUEL)
    assert found and "'Garden'" in found[0].detail
    assert "not in its evidence sentences" in found[0].detail


def test_a_small_models_answer_stays_in_its_evidence_sentences() -> None:
    found = answer_findings("2 petrol lawnmowers", GARDEN, FUEL, demo_grade=True)
    assert found and "evidence sentences" in found[0].detail and "'2'" in found[0].detail
    assert answer_findings("petrol mowers", GARDEN, FUEL, demo_grade=True) == []


@pytest.mark.parametrize(("answer", "missing"), [
    ("3 petrol lawnmowers", "'3'"),          # a number in no passage
    ("2 Honda lawnmowers", "'Honda'"),       # a name in no passage
    ("2 diesel lawnmowers", "'diesel'"),     # a changed word: no embedding stands in for it
    ("3 diesel generators", "'generators'"),  # the answer of another document
    ("it", "says nothing"),
    ("N/A", "says nothing"),
])
def test_known_bad_answers_stay_rejected(answer: str, missing: str) -> None:
    found = answer_findings(answer, GARDEN, FUEL)
    assert found and missing in found[0].detail, found


def test_words_reordered_and_an_example_in_parentheses_are_held_to_the_same_rule() -> None:
    quotes = ["Note that you give only the icewm for -remove"]
    assert answer_findings("source that you must build yourself", DPKG, quotes) == []
    assert answer_findings("only the package (e.g. icewm)", DPKG, quotes) == []
    found = answer_findings("only the package (e.g. xterm)", DPKG, quotes)
    assert found and "'xterm'" in found[0].detail


def test_vacuous_answers_are_those_that_name_count_and_state_nothing() -> None:
    assert all(vacuous(a) for a in ("it", "the one", "all of them", "None", "n/a", "..."))
    assert not any(vacuous(a) for a in ("Yes", "no", "$25", "7 days", "lamps", "[a-z]",
                                        "the people"))
    assert answer_problem("Yes", [GARDEN.text], Aliases()) is None
