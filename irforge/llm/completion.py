"""One provider answer, the unit the cache stores and the backends return."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

Message = dict[str, str]


@dataclass(frozen=True)
class Completion:
    """The text a model returned for one request, why it stopped, and what it cost."""

    text: str
    finish_reason: str | None = None
    refusal: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")


class RequestKeys:
    """Cache keys for many requests sharing a model, params and schema (hashed once)."""

    def __init__(self, model: str, params: dict[str, Any], schema: dict[str, Any] | None):
        self._prefix = hashlib.sha256(_canonical({"model": model, "params": params,
                                                  "schema": schema}))

    def key(self, messages: list[Message]) -> str:
        digest = self._prefix.copy()
        digest.update(b"\n")
        digest.update(_canonical(messages))
        return digest.hexdigest()


def request_key(model: str, messages: list[Message], params: dict[str, Any],
                schema: dict[str, Any] | None) -> str:
    """sha256 of (model, params, schema) then messages: equal requests share one entry.

    Keys and endpoints are not part of it: they change where a request goes, not its answer.
    """
    return RequestKeys(model, params, schema).key(messages)
