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


def request_key(model: str, messages: list[Message], params: dict[str, Any],
                schema: dict[str, Any] | None) -> str:
    """sha256 of (model, messages, params, schema): equal requests share one cache entry.

    Keys and endpoints are not part of it: they change where a request goes, not its answer.
    """
    payload = json.dumps({"model": model, "messages": messages, "params": params,
                          "schema": schema}, sort_keys=True, ensure_ascii=False,
                         separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
