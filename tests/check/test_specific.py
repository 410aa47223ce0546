"""form.specific: a query that reduces to one term found in passages not relevant to it."""

from __future__ import annotations

import pytest

from irforge.check.suite import Case, Context, case_fields, validate
from irforge.core.records import Doc, Query

DOCS = {
    "covers": Doc("covers", "A case binding is a cover made separately from the text block. "
                  "Greyboard about two millimetres thick stiffens the boards.", "Case binding"),
    "sewing": Doc("sewing", "Sewing on tapes makes a durable binding; the kettle stitch "
                  "links each signature to the next.", "Sewing the text block"),
    "tides": Doc("tides", "Spring tides come near the new moon and the full moon.", "Tides"),
}


def specific(text: str, *positives: str) -> list[str]:
    query = Query("q1", text)
    case = Case(query, case_fields(query), tuple(DOCS[p] for p in positives))
    return [f.detail for f in validate(case, Context(docs=DOCS, language="en"),
                                       only=["form.specific"])]


@pytest.mark.parametrize("text", ["What is the binding itself?", "binding?",
                                  "Tell me about binding."])
def test_a_query_that_only_names_a_shared_term_is_underspecified(text: str) -> None:
    [detail] = specific(text, "covers")
    assert "underspecified" in detail and "'binding'" in detail and "sewing" in detail


@pytest.mark.parametrize(("text", "positives"), [
    ("What is greyboard?", ("covers",)),  # one term, held only by its passage
    ("What is the binding itself?", ("covers", "sewing")),  # every passage holding it relevant
    ("How thick is the greyboard of a case binding?", ("covers",)),
    ("What does the kettle stitch link?", ("sewing",)),
    ("Where do the two bindings meet?", ("covers",)),  # a predicate is a second term
])
def test_a_second_term_or_a_term_only_its_passages_hold_passes(text: str, positives) -> None:
    assert specific(text, *positives) == []
