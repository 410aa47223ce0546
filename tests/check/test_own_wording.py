"""A capable model's request in its own words: accepted when the passage carries the need
(the whole request close to a window of its sentences), with names and numbers still strict;
a small model's query, a claim and an unrelated request keep word-level grounding."""

from __future__ import annotations

from typing import Any

import pytest

from irforge.check.suite import Case, Context, case_fields, validate
from irforge.core.records import Doc, Query

BALLADS = Doc("ballads", "Ballads were the popular music of the Middle Ages. Travelling "
                         "minstrels sang them in village squares, and most told of lovers "
                         "parted by war or by their families, set to a simple tune repeated "
                         "for every verse.", "Ballads")
PARAPHRASED = ("How did medieval wandering performers sing about couples separated by "
               "conflict?")


def problems(text: str, profile: str | None = "capable", **meta: Any) -> list[str]:
    query = Query("q", text, {"query_form": "question", **meta})
    context = Context(docs={BALLADS.doc_id: BALLADS}, language="en", profile=profile)
    found = validate(Case(query, case_fields(query), (BALLADS,)), context,
                     only=["grounding.query"])
    return [f.detail for f in found]


@pytest.mark.parametrize("text", [
    PARAPHRASED,
    "What did wandering singers of the medieval era perform about romance?",
])
def test_a_capable_models_paraphrase_of_what_the_passage_carries_is_grounded(text: str
                                                                             ) -> None:
    assert problems(text) == []
    assert problems(text, profile=None) == []  # irforge check: no profile, not demo grade


def test_a_small_models_query_keeps_word_level_grounding() -> None:
    assert problems(PARAPHRASED, profile="small")
    assert problems(PARAPHRASED, profile=None, demo_grade=True)


@pytest.mark.parametrize(("text", "missing"), [
    # an invented name or number is never carried by closeness of meaning
    ("Which medieval songs did Chaucer write for wandering singers?", "'Chaucer'"),
    ("How did 18th-century wandering singers perform love songs?", "'18th'"),
    # a request the passage does not carry
    ("Which instruments accompany a modern opera chorus?", "content words"),
])
def test_names_numbers_and_unrelated_requests_stay_rejected(text: str, missing: str) -> None:
    found = problems(text)
    assert found and missing in found[0]


def test_a_claim_in_other_words_keeps_word_level_grounding() -> None:
    claim = ("Romance songs of medieval wandering singers were about couples kept apart by "
             "conflict.")
    assert problems(claim, query_form="claim-supported", stance="supported")


@pytest.mark.parametrize(("profile", "rejected"), [("small", True), ("capable", False)])
def test_generation_grounds_by_the_writing_models_profile(profile: str, rejected: bool
                                                          ) -> None:
    from irforge.check.generation import attach_validators
    from irforge.steps.gates import QueryGates

    gates = attach_validators(QueryGates(language="en"), [BALLADS], profile=profile)
    reasons = gates.validate(PARAPHRASED, (BALLADS.title, BALLADS.text),
                             {"query_form": "question"})
    assert any("grounding.query" in r for r in reasons) is rejected
