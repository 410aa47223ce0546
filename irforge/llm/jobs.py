"""What the engine carries per run and per item: the shared request plan, and each item's
conversation and costs on its way through cache, retries and re-asks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from irforge.llm.completion import Message, RequestKeys
from irforge.prompts import Template


@dataclass(frozen=True)
class Plan:
    """What every item of one ``run`` shares: template, output model, schema, key prefix."""

    template: Template
    output_model: type[BaseModel]
    schema: dict[str, Any]
    instruction: str
    keys: RequestKeys
    step: str
    params: dict[str, Any]


@dataclass
class Job:
    """One item on its way: the conversation so far and what it has cost."""

    index: int
    messages: list[Message]
    plan: Plan
    key: str | None = None  # cache key of ``messages`` (reset when they change)
    tokens: int | None = None  # estimated prompt + completion tokens of ``messages``
    raw: str | None = None
    attempts: int = 0
    retries: int = 0
    reasks: int = 0
    answers_fetched: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    logprobs: tuple[Any, ...] | None = None
