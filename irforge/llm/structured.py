"""Structured output: schema instructions, tolerant JSON extraction, validation, re-ask text."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from pydantic import BaseModel, ValidationError

from irforge.llm.completion import Completion, Message
from irforge.llm.degeneration import LOOP_FINISH_REASON, looping_tail

FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
MAX_ERROR_CHARS = 1200


#: each output model's JSON schema, built once (pydantic takes about half a millisecond per
#: call, and steps ask per item); weak keys, so models made per item do not pile up
_SCHEMAS: WeakKeyDictionary[type[BaseModel], dict[str, Any]] = WeakKeyDictionary()


def output_schema(output_model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema the answer must follow (a fresh copy of the model's cached schema)."""
    schema = _SCHEMAS.get(output_model)
    if schema is None:
        schema = _SCHEMAS[output_model] = output_model.model_json_schema()
    return copy.deepcopy(schema)


def schema_instruction(schema: dict[str, Any]) -> str:
    """Plain-language instruction for providers without schema-constrained decoding."""
    return ("Reply with exactly one JSON object and nothing else (no prose, no code fence). "
            "It must validate against this JSON schema:\n"
            + json.dumps(schema, ensure_ascii=False, separators=(",", ":")))


def with_instructions(messages: list[Message], schema: dict[str, Any],
                      instruction: str | None = None) -> list[Message]:
    """A copy of ``messages`` with the schema instruction appended to the system message."""
    instruction = instruction or schema_instruction(schema)
    out = [dict(message) for message in messages]
    if out and out[0]["role"] == "system":
        out[0]["content"] = f"{out[0]['content']}\n\n{instruction}"
    else:
        out.insert(0, {"role": "system", "content": instruction})
    return out


def extract_json(text: str) -> Any:
    """The first JSON value in ``text``: whole text, a fenced block, or an embedded object."""
    stripped = text.strip()
    candidates = [stripped, *[m.strip() for m in FENCE.findall(stripped)]]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[{\[]", stripped):
        try:
            value, _ = decoder.raw_decode(stripped, match.start())
        except json.JSONDecodeError:
            continue
        return value
    raise ValueError("the reply contains no parseable JSON object")


def parse_output(text: str, output_model: type[BaseModel]) -> tuple[BaseModel | None, str | None]:
    """Validate ``text`` as ``output_model``; returns (value, None) or (None, error message)."""
    try:  # the common case, a bare JSON object, in one pass through pydantic-core
        return output_model.model_validate_json(text), None
    except ValidationError:
        pass
    try:
        data = extract_json(text)
    except ValueError as exc:
        return None, str(exc)
    try:
        return output_model.model_validate(data), None
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors())
        return None, f"JSON does not match the schema: {details}"[:MAX_ERROR_CHARS]


def reask_messages(messages: list[Message], raw: str, error: str) -> list[Message]:
    """The conversation extended with the bad reply and the validation error to fix."""
    return [*messages, {"role": "assistant", "content": raw},
            {"role": "user", "content": (
                f"That reply could not be used: {error}. Reply again with only one JSON object "
                "that follows the schema exactly.")}]


@dataclass(frozen=True)
class Verdict:
    """The judgement of one answer: a final status, or ``status=None`` meaning re-ask."""

    status: str | None
    value: BaseModel | None = None
    error: str | None = None


def judge(completion: Completion, output_model: type[BaseModel], reasks_done: int,
          max_reasks: int, max_tokens: int) -> Verdict:
    """Refused, ok, truncated, invalid, or re-ask (status None, with the error to send)."""
    if completion.refusal or completion.finish_reason == "content_filter":
        return Verdict("refused", error=completion.refusal or "blocked by the content filter")
    value, error = parse_output(completion.text, output_model)
    if value is not None:
        return Verdict("ok", value=value)
    if completion.finish_reason == LOOP_FINISH_REASON:
        return Verdict("degenerate", error="the output looped and was stopped early: "
                       f"{looping_tail(completion.text) or 'repeated text'}")
    if completion.finish_reason == "length":
        return Verdict("truncated", error=f"output stopped at max_tokens={max_tokens}: {error}")
    if reasks_done >= max_reasks:
        plural = "s" if reasks_done != 1 else ""
        return Verdict("invalid", error=f"{error} (after {reasks_done} re-ask{plural})")
    return Verdict(None, error=error)
