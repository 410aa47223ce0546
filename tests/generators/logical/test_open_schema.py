"""Schemas by model profile: the small model keeps enums of the passages' names and
sentences; a capable model gets open subject, object, answer and evidence fields that the
same checks hold to the passages afterwards. Evidence choices never exceed the quote limit."""

from __future__ import annotations

from irforge.core.records import Doc
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.query_schema import EVIDENCE_CHARS, evidence_pieces
from irforge.generators.logical.selection import QueryPlan
from irforge.generators.logical.steps import QueryItem, query_problems, query_step
from irforge.generators.logical.types import get_type

FILMS = DEMONSTRATIONS["pin"].passage
LONG = ("Numbers in running text are written in words from one to nine and in figures from 10 "
        "upwards, except in tables, in measurements with units, in dates, in page references, "
        "in percentages, in sums of money, in scores of games, in ages given after a name, in "
        "times of day and in any passage where several numbers are compared with each other "
        "and mixing the two forms would confuse the reader")


def _item(text: str, qtype: str = "2i") -> QueryItem:
    plan = QueryPlan(f"lq-{qtype}-0001", qtype, "g", ("d1",))
    return QueryItem(plan, (Doc("d1", text, "Style"),), DEMONSTRATIONS[qtype])


def _schema(item: QueryItem, open_fields: bool) -> dict:
    return query_step(open_fields).model_for(item).model_json_schema()


def test_the_small_profile_enumerates_and_the_capable_one_leaves_fields_open() -> None:
    item = _item(FILMS)
    small, capable = _schema(item, False), _schema(item, True)
    assert "enum" in small["properties"]["answer"]
    assert "enum" not in capable["properties"]["answer"]
    assert "anyOf" in small["properties"]["evidence"]["items"]
    text = capable["properties"]["evidence"]["items"]["properties"]["text"]
    assert text == {"type": "string", "maxLength": EVIDENCE_CHARS}
    # both ask for every key and the type's group sizes
    assert set(capable["required"]) == set(small["required"]) == {
        "query", "answer", "triples", "evidence"}


def test_an_entity_list_of_one_name_no_longer_forces_degenerate_triples() -> None:
    # a passage naming one entity: the small schema's subject/object enum holds only it
    item = _item("Numbers are written as words up to nine.")
    capable = query_step(True).model_for(item)
    output = capable.model_validate({
        "query": "Which style writes numbers as words?", "answer": "Numbers",
        "triples": {"projection": [], "union": [], "negation": [], "intersection": [
            {"subject": "numbers up to nine", "relation": "written as", "object": "?t"},
            {"subject": "style guide", "relation": "rule for", "object": "?t"}]},
        "evidence": [{"passage": 1, "text": "Numbers are written as words up to nine."}]})
    reasons = query_problems(get_type("2i"), output, item.texts)[1]
    assert not [r for r in reasons if r.startswith("structure")]  # a real 2i structure


def test_open_fields_are_still_checked_against_the_passages() -> None:
    item = _item(FILMS)
    model = query_step(True).model_for(item)
    invented = model.model_validate({
        "query": "Which film did Lena Ortiz direct?", "answer": "Blue Lagoon",
        "triples": {"projection": [], "union": [], "negation": [], "intersection": [
            {"subject": "Lena Ortiz", "relation": "directed", "object": "?t"},
            {"subject": "Golden Reed", "relation": "awarded to", "object": "?t"}]},
        "evidence": [{"passage": 1, "text": "Lena Ortiz directed Blue Lagoon in 2020."}]})
    (check,) = query_step(True).validators  # what the build runs for a capable model
    reasons = check(item, invented)
    assert any("'Lagoon'" in r and "not in its passages" in r for r in reasons)
    assert any("is not found in passage 1" in r for r in reasons)


def test_the_capable_step_grounds_the_answer_by_form_and_the_small_one_verbatim() -> None:
    item = _item(FILMS)
    worded = query_step(True).model_for(item).model_validate({
        "query": "Which film by Lena Ortiz won the Golden Reed?",
        "answer": "Quiet Harbor, with Ada Kim and Tomas Reyes (2011)",
        "triples": {"projection": [], "union": [], "negation": [], "intersection": [
            {"subject": "Lena Ortiz", "relation": "directed", "object": "?t"},
            {"subject": "Golden Reed", "relation": "awarded to", "object": "?t"}]},
        "evidence": [{"passage": 1, "text": "Lena Ortiz directed Quiet Harbor (2011)"},
                     {"passage": 1, "text": "Quiet Harbor starred Tomas Reyes and Ada Kim "
                                            "and won the Golden Reed award"}]})
    (capable,), (small,) = query_step(True).validators, query_step(False).validators
    assert capable(item, worded) == []
    assert any("does not appear in the passages" in r for r in small(item, worded))
    wrong_year = worded.model_copy(update={"answer": "Quiet Harbor, with Ada Kim (2012)"})
    assert any("'2012'" in r for r in capable(item, wrong_year))


def test_evidence_choices_fit_the_quote_limit() -> None:
    assert len(LONG) > EVIDENCE_CHARS  # one unsplit sentence, longer than the limit
    pieces = evidence_pieces(LONG)
    assert pieces and all(len(piece) <= EVIDENCE_CHARS for piece in pieces)
    assert all(piece in LONG for piece in pieces)  # verbatim
    schema = _schema(_item(LONG), False)
    enum = schema["properties"]["evidence"]["items"]["anyOf"][0]["properties"]["text"]["enum"]
    assert enum == list(pieces)


def test_the_prompt_states_the_evidence_count_its_schema_enforces() -> None:
    """A relay model met a schema capping evidence at 2 that the prompt never mentioned:
    the count now comes from one declaration (evidence_bounds) for both."""
    from irforge.generators.logical.query_schema import (
        evidence_bounds,
        open_query_model,
        query_model,
    )
    from irforge.generators.logical.steps import query_variables
    from irforge.generators.logical.types import TYPE_NAMES
    from irforge.prompts import get_template

    texts = ("Ada Kim was born in Dunmore.", "June Park directed Iron Meadow.",
             "Iron Meadow won the Golden Reed.")
    docs = tuple(Doc(f"d{i}", text, "Films") for i, text in enumerate(texts))
    for name in TYPE_NAMES:
        for count in (1, 2, 3):
            low, high = evidence_bounds(name, count)
            assert 1 <= count == low <= high <= max(count, 4)
            for schema in (open_query_model(name, count).model_json_schema(),
                           query_model(name, texts[:count]).model_json_schema()):
                evidence = schema["properties"]["evidence"]
                assert (evidence["minItems"], evidence["maxItems"]) == (low, high)
            item = QueryItem(QueryPlan(f"lq-{name}-0000", name, "Films",
                                       tuple(d.doc_id for d in docs[:count])),
                             docs[:count], DEMONSTRATIONS[name])
            prompt = get_template("logical.query").render(**query_variables(item))[1]["content"]
            stated = f"exactly {low} sentence" if low == high else f"{low} to {high} sentences"
            assert f'"evidence": {stated}' in prompt, (name, count)
