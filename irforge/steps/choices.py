"""Choices by construction: a step that selects from its input answers with ids, not copies.

The prompt shows the options numbered (``[1] ...``); the output model lists the ids it may
return as a JSON-schema ``enum``. Backends that constrain decoding to the schema (llama.cpp
grammars, vLLM/SGLang guided JSON, strict structured outputs) can then only emit valid ids, so
the selection is verbatim by construction; on other backends pydantic checks the ids on parse
(an out-of-range id is an invalid answer and is re-asked). Ids are 1-based.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal, TypeVar

from pydantic import BaseModel, Field, create_model, field_validator

T = TypeVar("T")


class Choice(BaseModel):
    """Ids of the chosen options (1-based, in the order the model gave them), all distinct.

    A repeated id fails validation, so the engine re-asks with the reason.
    """

    ids: list[int]

    @field_validator("ids")
    @classmethod
    def _distinct(cls, value: list[int]) -> list[int]:
        reasons = repeated_ids(value)
        if reasons:
            raise ValueError("; ".join(reasons))
        return value


@lru_cache(maxsize=256)
def choice_model(options: int, count: int | None = None, minimum: int = 1) -> type[Choice]:
    """A :class:`Choice` whose ``ids`` are an ``enum`` of 1..``options``.

    ``count`` asks for exactly that many ids; otherwise between ``minimum`` and ``options``.
    """
    if options < 1:
        raise ValueError(f"a choice needs at least one option, got {options}")
    allowed = Literal[tuple(range(1, options + 1))]  # type: ignore[valid-type]
    low, high = (count, count) if count is not None else (minimum, options)
    name = f"Choose{count if count is not None else 'Some'}Of{options}"
    return create_model(  # type: ignore[call-overload, no-any-return]
        name, __base__=Choice, ids=(list[allowed], Field(min_length=low, max_length=high)))


def numbered(options: Sequence[str]) -> list[str]:
    """The options as prompt lines ``[id] text`` (1-based ids, matching :func:`choice_model`)."""
    return [f"[{index}] {' '.join(text.split())}" for index, text in enumerate(options, start=1)]


def repeated_ids(ids: Sequence[int]) -> list[str]:
    """Reasons for ids chosen more than once (every choice must be distinct)."""
    seen: set[int] = set()
    reasons = []
    for position, choice in enumerate(ids, start=1):
        if choice in seen:
            reasons.append(f"choice {position} repeats id {choice}; each must differ")
        seen.add(choice)
    return reasons


def picked(options: Sequence[T], ids: Sequence[int]) -> list[T]:
    """The options named by ``ids`` (1-based), in the order given."""
    out = []
    for choice in ids:
        if not 1 <= choice <= len(options):
            raise ValueError(f"id {choice} is not one of the {len(options)} options")
        out.append(options[choice - 1])
    return out
