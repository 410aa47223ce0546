"""The embedded model decoding several requests per llama.cpp batch (opt in: llama_slots):
the grammar holds for every sequence, each request gets its own answer, a bad setting is a
clear error."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from irforge.core.errors import IrforgeError
from irforge.llm.backends import LlamaBackend, llama_slots
from irforge.llm.settings import ModelSpec

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "rank": {"type": "integer"}},
          "required": ["city", "rank"]}


def test_batched_requests_each_follow_the_schema(embedded_model_path: Path) -> None:
    spec = ModelSpec(name="embedded", backend="llama", gguf_path=embedded_model_path,
                     transport="llama")
    backend = LlamaBackend(spec, slots=2)
    params = {"temperature": 0.0, "max_tokens": 24, "seed": 0, "repeat_penalty": 1.1}
    countries = ("France", "Japan", "Kenya")

    async def ask() -> list:
        return await asyncio.gather(*(backend.complete(
            [{"role": "user", "content": f"Name the capital of {country} as JSON with its "
                                         "rank 1."}], SCHEMA, params, 600.0)
            for country in countries))

    answers = asyncio.run(ask())
    assert len(answers) == 3
    for answer in answers:  # three requests on two slots: one waited for a free slot
        assert answer.completion_tokens > 0 and answer.prompt_tokens > 0
        if answer.finish_reason == "stop":  # a finished answer is whole JSON of the schema
            data = json.loads(answer.text)
            assert isinstance(data["city"], str) and isinstance(data["rank"], int)
        else:
            assert answer.finish_reason in ("length", "repetition")
            assert answer.text.lstrip().startswith("{")


@pytest.mark.parametrize("value", [0, "four", 2.5, True])
def test_a_bad_llama_slots_setting_is_a_clear_error(value: object) -> None:
    with pytest.raises(IrforgeError, match="llama_slots must be a whole number"):
        llama_slots({"llama_slots": value})


def test_batching_is_off_unless_asked() -> None:
    assert llama_slots({}) == 1 and llama_slots({"llama_slots": 4}) == 4
