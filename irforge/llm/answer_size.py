"""How large an answer may be: a bound from the request's own token budget, with a margin.

A server that sends 10 MB for ``max_tokens`` 1,024 is broken or hostile; its answer must not
reach the cache or the data. The direct path stops reading the body past
:func:`body_limit`; every transport's answer text is checked against :func:`text_limit`
(:func:`check_answer`), and the item fails with :class:`AnswerTooLarge` (never retried: the
server would send the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_MAX_TOKENS = 4096  # when a request names no limit
CHARS_PER_TOKEN = 32  # the longest tokens of common vocabularies are far shorter
BYTES_PER_TOKEN = 6 * CHARS_PER_TOKEN  # JSON may escape each character as \uXXXX
BYTES_PER_ALTERNATIVE = 160  # one top-logprob entry: token, bytes, logprob
BASE_BYTES = 64 * 1024  # the envelope: ids, usage, finish reason, headers echoed in errors


class AnswerTooLarge(Exception):
    """The answer is larger than the request's token budget allows (not retried)."""


def max_tokens(params: Mapping[str, Any]) -> int:
    value = params.get("max_tokens") or params.get("max_completion_tokens")
    try:
        return max(int(value), 1) if value else DEFAULT_MAX_TOKENS
    except (TypeError, ValueError):
        return DEFAULT_MAX_TOKENS


def body_limit(params: Mapping[str, Any]) -> int:
    """Bytes a response body may have for a request with these parameters."""
    tokens = max_tokens(params)
    alternatives = int(params.get("logprobs") or 0)
    per_token = BYTES_PER_TOKEN + (alternatives + 1) * BYTES_PER_ALTERNATIVE * bool(alternatives)
    return BASE_BYTES + tokens * per_token


def text_limit(params: Mapping[str, Any]) -> int:
    """Characters an answer's text may have for a request with these parameters."""
    return max_tokens(params) * CHARS_PER_TOKEN


def too_large(what: str, size: int, limit: int, params: Mapping[str, Any]) -> AnswerTooLarge:
    return AnswerTooLarge(
        f"the answer's {what} is over {limit:,} (got {size:,}{'+' if size > limit else ''}), "
        f"far more than max_tokens {max_tokens(params):,} allows; the server is sending junk, "
        "so the item fails and nothing is stored (check the server, or raise max_tokens if "
        "its answers are legitimately this long)")


def check_answer(text: str | None, params: Mapping[str, Any]) -> None:
    """Raise :class:`AnswerTooLarge` when ``text`` is longer than the budget allows."""
    limit = text_limit(params)
    if text is not None and len(text) > limit:
        raise too_large("text (characters)", len(text), limit, params)
