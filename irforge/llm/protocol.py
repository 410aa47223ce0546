"""The engine as its callers see it: one protocol for generators, labeling, rerankers, steps.

Code that drives LLM calls types its engine as :class:`EngineLike`, so tests can hand it a
fake and nothing above ``irforge.llm`` needs to import the engine's heavy dependencies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class ResultLike(Protocol):
    """The fields of :class:`irforge.llm.LLMResult` a caller reads."""

    status: str
    value: Any
    raw: str | None
    error: str | None


class EngineLike(Protocol):
    """The part of :class:`irforge.llm.Engine` its callers use."""

    def run(self, items: Sequence[Mapping[str, Any]], template_name: str, output_model: type,
            step: str | None = None, *, sample: int = 0,
            max_tokens: int | None = None) -> list[Any]: ...
