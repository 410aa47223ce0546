"""Choices by construction: the schema enumerates the ids an answer may contain."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from irforge.steps.choices import choice_model, numbered, picked


def test_the_schema_enumerates_the_allowed_ids_and_the_count():
    schema = choice_model(4, 2).model_json_schema()
    ids = schema["properties"]["ids"]
    assert ids["items"]["enum"] == [1, 2, 3, 4]
    assert ids["minItems"] == ids["maxItems"] == 2
    assert choice_model(4, 2) is choice_model(4, 2)  # cached per shape


@pytest.mark.parametrize(("ids", "message"), [
    ([1, 5], "Input should be 1, 2, 3 or 4"),  # not an option: invalid on any backend
    ([2, 2], "repeats id 2"),
    ([1], "at least 2"),
])
def test_known_bad_choices_are_refused_on_parse(ids, message):
    with pytest.raises(ValidationError, match=message):
        choice_model(4, 2).model_validate({"ids": ids})


def test_ids_map_back_to_the_numbered_options():
    options = ["Alpha  one.", "Beta two.", "Gamma three."]
    assert numbered(options) == ["[1] Alpha one.", "[2] Beta two.", "[3] Gamma three."]
    assert picked(options, [3, 1]) == ["Gamma three.", "Alpha  one."]
    with pytest.raises(ValueError, match="not one of the 3"):
        picked(options, [4])
    some = choice_model(3).model_validate({"ids": [2]})
    assert some.ids == [2]
