from __future__ import annotations

import gc
import weakref

import pytest
from pydantic import BaseModel, create_model

from irforge.llm.structured import (
    _SCHEMAS,
    extract_json,
    output_schema,
    parse_output,
    reask_messages,
    with_instructions,
)


class Answer(BaseModel):
    label: int
    reason: str


@pytest.mark.parametrize("text", [
    '{"label": 1, "reason": "x"}',
    'Sure! ```json\n{"label": 1, "reason": "x"}\n``` hope it helps',
    'The answer is {"label": 1, "reason": "x"} as requested.',
])
def test_extract_json_tolerates_fences_and_prose(text: str) -> None:
    assert extract_json(text) == {"label": 1, "reason": "x"}


def test_extract_json_rejects_text_without_json() -> None:
    with pytest.raises(ValueError, match="no parseable JSON"):
        extract_json("I cannot answer that {oops")


def test_parse_output_names_the_failing_field() -> None:
    value, error = parse_output('{"label": "high", "reason": "x"}', Answer)
    assert value is None and error is not None and "label" in error
    value, error = parse_output('{"label": 2, "reason": "ok"}', Answer)
    assert value == Answer(label=2, reason="ok") and error is None


def test_instructions_and_reask_do_not_modify_inputs() -> None:
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    extended = with_instructions(messages, Answer.model_json_schema())
    assert messages[0]["content"] == "S"
    assert "JSON schema" in extended[0]["content"] and '"label"' in extended[0]["content"]
    again = reask_messages(extended, "bad", "label: missing")
    assert len(extended) == 2 and again[-2] == {"role": "assistant", "content": "bad"}
    assert "label: missing" in again[-1]["content"]


def test_output_schema_is_the_models_and_a_callers_change_does_not_stick() -> None:
    model = create_model("Answer", text=(str, ...))
    schema = output_schema(model)
    assert schema == model.model_json_schema()
    schema["properties"]["text"]["type"] = "integer"
    assert output_schema(model) == model.model_json_schema()


def test_a_model_made_per_item_leaves_no_cached_schema_behind() -> None:
    model = create_model("PerItem", value=(int, ...))
    output_schema(model)
    assert model in _SCHEMAS
    gone = weakref.ref(model)
    del model
    gc.collect()
    assert gone() is None  # the cache held the model only weakly
