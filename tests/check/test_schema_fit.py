"""A JSON value against a JSON schema: required keys, patterns, enums, sizes, alternatives."""

from __future__ import annotations

from irforge.check.schema_fit import schema_problems

SCHEMA = {
    "type": "object", "required": ["query", "triples"],
    "properties": {
        "query": {"type": "string", "pattern": r"^[^?]*\?$", "maxLength": 40},
        "triples": {"$ref": "#/$defs/Groups"},
        "evidence": {"type": "array", "maxItems": 1, "items": {"anyOf": [
            {"type": "object", "properties": {"passage": {"const": 1},
                                              "text": {"enum": ["A sentence."]}}}]}},
    },
    "$defs": {"Groups": {"type": "object", "required": ["union"],
                         "properties": {"union": {"type": "array", "minItems": 1}}}},
}


def test_a_fitting_value_has_no_problem() -> None:
    value = {"query": "Who?", "triples": {"union": [1]},
             "evidence": [{"passage": 1, "text": "A sentence."}]}
    assert schema_problems(SCHEMA, value) == []


def test_every_break_is_named_with_where() -> None:
    value = {"query": "Who?? I want more", "triples": {},
             "evidence": [{"passage": 1, "text": "Other."}, {"passage": 2, "text": "x"}]}
    problems = schema_problems(SCHEMA, value)
    assert any(p.startswith("$.query:") and "pattern" in p for p in problems)
    assert "$.triples: missing required key(s) ['union']" in problems
    assert "$.evidence: 2 item(s), more than 1" in problems
    assert any(p.startswith("$.evidence[0].text:") and "not one of the allowed" in p
               for p in problems)
    assert schema_problems(SCHEMA, {"query": 3, "triples": {"union": [1]}}) == [
        "$.query: expected string, got int"]
