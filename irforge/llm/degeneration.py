"""Degeneration guards: spot a looping output early, and size token limits to a schema.

Small models under constrained decoding often loop inside a JSON string ("on an island, on an
island, ...") until ``max_tokens``. :func:`looping_tail` recognises such a tail while the text
streams in, so the backend can stop at once and the engine can classify the answer as
``degenerate`` instead of spending the whole token budget. :func:`schema_token_limit` gives a
step a ``max_tokens`` sized to what its output model can legitimately need.
"""

from __future__ import annotations

from typing import Any

#: a tail made of one unit (up to LOOP_MAX_PERIOD characters) repeated LOOP_MIN_REPEATS+ times
#: and covering LOOP_MIN_CHARS+ characters is a loop
LOOP_MAX_PERIOD = 80
LOOP_MIN_REPEATS = 4
LOOP_MIN_CHARS = 64
#: how often (in streamed chunks) the backend looks for a loop
LOOP_CHECK_EVERY = 8
#: the finish reason a backend reports when it stopped a looping output
LOOP_FINISH_REASON = "repetition"
#: repeat penalty sent to llama.cpp (1.0 = none); mild, so JSON punctuation still flows
LLAMA_REPEAT_PENALTY = 1.1

#: token allowances per schema part (generous: a limit must never cut a legitimate answer)
TOKENS_PER_STRING = 160
TOKENS_PER_SCALAR = 8
TOKENS_PER_KEY = 6
DEFAULT_ARRAY_ITEMS = 8
MIN_TOKEN_LIMIT = 64


def looping_tail(text: str) -> str | None:
    """Describe the loop ``text`` ends in (unit and repeats), or None when it does not loop."""
    size = len(text)
    for period in range(1, min(LOOP_MAX_PERIOD, size // LOOP_MIN_REPEATS) + 1):
        unit = text[size - period:]
        repeats = 1
        while size - (repeats + 1) * period >= 0 and \
                text[size - (repeats + 1) * period:size - repeats * period] == unit:
            repeats += 1
        if repeats >= LOOP_MIN_REPEATS and repeats * period >= LOOP_MIN_CHARS:
            return f"{unit!r} repeated {repeats} times"
    return None


def schema_token_limit(schema: dict[str, Any]) -> int:
    """A generous token budget for one answer following ``schema`` (JSON overhead included)."""
    defs = schema.get("$defs", {})

    def cost(node: Any, depth: int = 0) -> int:
        if not isinstance(node, dict) or depth > 8:
            return TOKENS_PER_STRING
        if "$ref" in node:
            return cost(defs.get(str(node["$ref"]).rsplit("/", 1)[-1], {}), depth + 1)
        for key in ("anyOf", "oneOf"):
            if key in node:
                return max(cost(option, depth + 1) for option in node[key])
        if "enum" in node or "const" in node:
            return TOKENS_PER_SCALAR
        kind = node.get("type")
        if kind == "object":
            props = node.get("properties", {})
            return 2 + sum(TOKENS_PER_KEY + cost(value, depth + 1) for value in props.values())
        if kind == "array":
            count = int(node.get("maxItems", node.get("minItems", DEFAULT_ARRAY_ITEMS))
                        or DEFAULT_ARRAY_ITEMS)
            return 2 + count * (2 + cost(node.get("items", {}), depth + 1))
        if kind in ("integer", "number", "boolean", "null"):
            return TOKENS_PER_SCALAR
        return TOKENS_PER_STRING

    return max(MIN_TOKEN_LIMIT, cost(schema))
