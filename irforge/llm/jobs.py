"""What the engine carries per run and per item: the shared request plan, and each item's
conversation and costs on its way through cache, retries and re-asks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from irforge.core.redact import contains_secret, redact
from irforge.llm.completion import Completion, Message, RequestKeys
from irforge.llm.result import LLMResult, Status
from irforge.llm.structured import judge, reask_messages
from irforge.prompts import Template

# an answer that repeats a key, token or password is never kept (nor cached: see the engine)
LEAKED_SECRET = ("rejected: the answer contains a credential (an API key, token or password; "
                 "blanked here), e.g. a server echoing the request headers; it is not stored")


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
    model: str = ""  # the name results carry
    demo_grade: bool = False


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

    def request_key(self) -> str:
        """Cache key of the conversation as it stands (computed once per state)."""
        if self.key is None:
            self.key = self.plan.keys.key(self.messages)
        return self.key

    def take(self, completion: Completion, max_reasks: int) -> LLMResult | None:
        """Judge one answer: the item's final result, or None after queueing a re-ask."""
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.raw = completion.text
        self.logprobs = completion.logprobs
        plan = self.plan
        if contains_secret(completion.text) or contains_secret(completion.refusal):
            return self.finish("invalid", error=LEAKED_SECRET)
        verdict = judge(completion, plan.output_model, self.reasks, max_reasks,
                        int(plan.params["max_tokens"]))
        if verdict.status is not None:
            return self.finish(verdict.status, value=verdict.value, error=verdict.error)
        self.reasks += 1
        self.messages = reask_messages(self.messages, completion.text,
                                       verdict.error or "invalid")
        self.key = self.tokens = None
        return None

    def finish(self, status: Status, value: Any = None, error: str | None = None) -> LLMResult:
        """The item's result; texts are stored only with every credential blanked out."""
        plan = self.plan
        return LLMResult(status=status, value=value, raw=redact(self.raw), error=redact(error),
                         model=plan.model, prompt_id=plan.template.name,
                         prompt_hash=plan.template.hash,
                         cached=self.answers_fetched == 0 and self.raw is not None,
                         attempts=self.attempts, retries=self.retries, reasks=self.reasks,
                         prompt_tokens=self.prompt_tokens,
                         completion_tokens=self.completion_tokens, cost_usd=self.cost_usd,
                         demo_grade=plan.demo_grade, step=plan.step, logprobs=self.logprobs)
