"""One provider answer, the unit the cache stores and the backends return."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

Message = dict[str, str]
# per generated token, when the request asked for log-probs: (token, logprob, top alternatives
# as (token, logprob) pairs, best first)
TokenLogprob = tuple[str, float, tuple[tuple[str, float], ...]]


@dataclass(frozen=True)
class Completion:
    """The text a model returned for one request, why it stopped, and what it cost."""

    text: str
    finish_reason: str | None = None
    refusal: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    logprobs: tuple[TokenLogprob, ...] | None = None


def openai_params(params: dict[str, Any]) -> dict[str, Any]:
    """Engine params as an OpenAI request sends them (``logprobs: n`` -> top_logprobs)."""
    out = {k: v for k, v in params.items() if k != "logprobs"}
    if params.get("logprobs"):
        out.update(logprobs=True, top_logprobs=int(params["logprobs"]))
    return out


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def openai_logprobs(data: Any) -> tuple[TokenLogprob, ...] | None:
    """OpenAI-style ``choice.logprobs.content`` as (token, logprob, alternatives) tuples."""
    content = _field(data, "content") if data is not None else None
    if not content:
        return None
    return tuple((str(_field(entry, "token")), float(_field(entry, "logprob")),
                  tuple((str(_field(alt, "token")), float(_field(alt, "logprob")))
                        for alt in _field(entry, "top_logprobs") or ()))
                 for entry in content)


def logprobs_json(logprobs: tuple[TokenLogprob, ...] | None) -> str | None:
    """Log-probs as JSON text for the cache (None stays None)."""
    return None if logprobs is None else json.dumps(logprobs, ensure_ascii=False)


def logprobs_from_json(text: str | None) -> tuple[TokenLogprob, ...] | None:
    """The inverse of :func:`logprobs_json`."""
    if not text:
        return None
    return tuple((str(token), float(lp), tuple((str(a), float(b)) for a, b in alts))
                 for token, lp, alts in json.loads(text))


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


class GenerationTimeout(RuntimeError):
    """A local generation passed its deadline (not retried: it would time out again)."""
