"""A capable model's negation query names what its negation rules out, and the checks hold
that entity to the passages: a negation that excludes nothing among them is rejected."""

from __future__ import annotations

import pytest

from irforge.core.records import Doc
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.query_schema import open_query_model
from irforge.generators.logical.selection import QueryPlan
from irforge.generators.logical.steps import QueryItem, query_step, query_variables
from irforge.generators.logical.types import NEGATION_TYPES, TYPE_NAMES, get_type
from irforge.prompts import get_template

FILMS = DEMONSTRATIONS["pin"].passage
# 2in over the films: Lena Ortiz directed Quiet Harbor (won the Golden Reed) and Salt Roads
BASE = {"query": "Which film directed by Lena Ortiz did not win the Golden Reed award?",
        "answer": "Salt Roads",
        "triples": {"projection": [], "union": [],
                    "intersection": [{"subject": "Lena Ortiz", "relation": "directed",
                                      "object": "?t"}],
                    "negation": [{"subject": "Golden Reed", "relation": "awarded to",
                                  "object": "?t"}]},
        "evidence": [{"passage": 1, "text": "Lena Ortiz directed Quiet Harbor (2011) and Salt "
                                            "Roads (2014)."},
                     {"passage": 1, "text": "Quiet Harbor starred Tomas Reyes and Ada Kim and won "
                                            "the Golden Reed award; Salt Roads won no award."}]}
MEETS = {"passage": 1, "text": "Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014)."}
RULED_OUT = {"passage": 1, "text": "Quiet Harbor starred Tomas Reyes and Ada Kim and won the "
                                   "Golden Reed award"}


def _item(qtype: str = "2in") -> QueryItem:
    plan = QueryPlan(f"lq-{qtype}-0001", qtype, "g", ("d1",))
    return QueryItem(plan, (Doc("d1", FILMS, "Films"),), DEMONSTRATIONS[qtype])


def _reasons(excluded: list[dict] | None, open_fields: bool = True) -> list[str]:
    item = _item()
    step = query_step(open_fields)
    answer = dict(BASE) if excluded is None else {**BASE, "excluded": excluded}
    (check,) = step.validators
    return check(item, step.model_for(item).model_validate(answer))


def test_a_negation_that_names_the_candidate_it_rules_out_is_kept() -> None:
    assert _reasons([{"entity": "Quiet Harbor", "meets": MEETS, "ruled_out": RULED_OUT}]) == []


# known-bad: each must stay rejected
BAD = [
    (None, "names no entity of the passages that the negation rules out"),
    ([], "names no entity of the passages that the negation rules out"),
    ([{"entity": "Salt Roads", "meets": MEETS, "ruled_out": {
        "passage": 1, "text": "Salt Roads won no award."}}],
     "is the answer, which the negation must leave in"),
    ([{"entity": "Golden Reed", "meets": MEETS, "ruled_out": RULED_OUT}],
     "is a term of the negated triple"),
    ([{"entity": "Blue Lagoon", "meets": MEETS, "ruled_out": RULED_OUT}],
     "'Blue Lagoon' is not in its meets sentence"),
    ([{"entity": "Quiet Harbor", "meets": MEETS, "ruled_out": {
        "passage": 1, "text": "Quiet Harbor lost the Golden Reed award to Blue Lagoon in 2019."}}],
     "its ruled_out sentence 'Quiet Harbor lost"),
    ([{"entity": "Quiet Harbor", "meets": MEETS, "ruled_out": {
        "passage": 2, "text": "Quiet Harbor won the Golden Reed award."}}],
     "cites passage 2 but only 1 passage(s) were given"),
    # the sentence names the entity but says nothing of the negated fact
    ([{"entity": "Tomas Reyes", "meets": {"passage": 1, "text": "Quiet Harbor starred Tomas "
                                                             "Reyes and Ada Kim"},
       "ruled_out": {"passage": 1, "text": "Marco Bell directed Iron Meadow, starring June Park "
                                           "and Tomas Reyes."}}],
     "its ruled_out sentence shares no word with the negated triples"),
    # the meets sentence shows nothing of the must-hold part
    ([{"entity": "Quiet Harbor", "meets": {"passage": 1, "text": "Quiet Harbor starred Tomas "
                                                             "Reyes and Ada Kim"},
       "ruled_out": RULED_OUT}],
     "its meets sentence shares no word with the must-hold triples"),
]


@pytest.mark.parametrize(("excluded", "expected"), BAD)
def test_a_negation_that_shows_nothing_ruled_out_is_rejected(excluded, expected) -> None:
    reasons = _reasons(excluded)
    assert any(r.startswith("negation: ") and expected in r for r in reasons), reasons


def test_the_small_profile_is_not_asked_and_not_held_to_it() -> None:
    assert not [r for r in _reasons(None, open_fields=False) if r.startswith("negation")]
    item = _item()
    schema = query_step(False).model_for(item).model_json_schema()
    assert "excluded" not in schema["properties"]
    prompt = get_template("logical.query").render(**query_variables(item))[1]["content"]
    assert '"excluded"' not in prompt


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_capable_negation_types_ask_for_it_in_schema_prompt_and_example(name) -> None:
    """One declaration: where the open schema requires "excluded", the prompt explains it and
    its worked example fills it; elsewhere none of the three mentions it."""
    item = _item(name)
    schema = open_query_model(name, 1).model_json_schema()
    variables = query_variables(item, open_fields=True)
    prompt = get_template("logical.query").render(**variables)[1]["content"]
    asked = name in NEGATION_TYPES
    assert ("excluded" in schema.get("required", [])) is asked
    assert ('- "excluded":' in prompt) is asked
    assert ('"excluded"' in variables["demo_output"]) is asked
    if asked:
        assert schema["properties"]["excluded"]["minItems"] == 1
        (check,) = query_step(True).validators
        demo = DEMONSTRATIONS[name]
        own = QueryItem(QueryPlan(f"lq-{name}-0001", name, "g", ("d1",)),
                        (Doc("d1", demo.passage, "Demo"),), demo)
        example = open_query_model(name, 1).model_validate_json(variables["demo_output"])
        assert check(own, example) == []
        assert get_type(name).has_negation


def test_a_kept_query_records_what_its_negation_rules_out() -> None:
    from irforge.generators.logical.steps import accept_query

    item = _item()
    answer = {**BASE, "excluded": [{"entity": "Quiet Harbor", "meets": MEETS,
                                    "ruled_out": RULED_OUT}]}
    output = query_step(True).model_for(item).model_validate(answer)
    query = accept_query(item, output, own_wording=True).to_query()
    [excluded] = query.metadata["excluded"]
    assert excluded["entity"] == "Quiet Harbor"
    assert excluded["ruled_out"]["doc_id"] == excluded["meets"]["doc_id"] == "d1"
