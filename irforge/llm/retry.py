"""Which failures are worth retrying, and how long to wait: Retry-After first, else backoff.

The engine's request loop uses :func:`is_retryable` and :func:`wait_seconds` directly (no
per-request retry object); :func:`retrying` wraps the same policy for tenacity users.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
RETRY_NAMES = frozenset({
    "RateLimitError", "InternalServerError", "ServiceUnavailableError", "APIConnectionError",
    "Timeout", "APITimeoutError", "BadGatewayError", "TimeoutException", "ConnectError",
    "ReadTimeout", "ConnectTimeout", "RemoteProtocolError", "ReadError",
    # the direct path (aiohttp, irforge/llm/direct.py)
    "ClientConnectionError", "ClientPayloadError", "MalformedResponseError",
})
MAX_RETRY_AFTER = 300.0


class RequestTimeoutError(TimeoutError):
    """No complete answer within the request timeout (retried like any timeout)."""


def status_code(exc: BaseException) -> int | None:
    """The HTTP status behind an exception, when it carries one."""
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def is_retryable(exc: BaseException) -> bool:
    """True for rate limits, server errors, timeouts and connection errors."""
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    code = status_code(exc)
    if code is not None:
        return code in RETRY_STATUS
    return any(cls.__name__ in RETRY_NAMES for cls in type(exc).__mro__)


def _headers(exc: BaseException) -> list[Any]:
    found = []
    for holder in (exc, getattr(exc, "response", None)):
        headers = getattr(holder, "headers", None)
        if headers:
            found.append(headers)
    extra = getattr(exc, "litellm_response_headers", None)
    if extra:
        found.append(extra)
    return found


def retry_after_seconds(exc: BaseException,
                        cap: float | None = MAX_RETRY_AFTER) -> float | None:
    """Seconds the server asked us to wait (``Retry-After`` / ``retry-after-ms``), if any,
    at most ``cap`` (None: as asked)."""
    limit = float("inf") if cap is None else cap
    for headers in _headers(exc):
        try:
            millis = headers.get("retry-after-ms")
            if millis is not None:
                return min(max(float(millis) / 1000, 0.0), limit)
            value = headers.get("retry-after")
        except (AttributeError, TypeError, ValueError):
            continue
        if value is None:
            continue
        try:
            return min(max(float(value), 0.0), limit)
        except ValueError:
            pass
        try:
            import time

            when = parsedate_to_datetime(str(value)).timestamp()
            return min(max(when - time.time(), 0.0), limit)
        except (TypeError, ValueError):
            continue
    return None


def backoff_seconds(attempt: int, initial: float, maximum: float) -> float:
    """Full-jitter exponential backoff after failed attempt number ``attempt`` (1-based)."""
    return random.uniform(0, min(maximum, initial * 2 ** (attempt - 1)))


def wait_seconds(exc: BaseException, attempt: int, initial: float, maximum: float,
                 cap: float = MAX_RETRY_AFTER) -> float:
    """The server's Retry-After if given (at most ``cap``), else full-jitter backoff."""
    asked = retry_after_seconds(exc, cap)
    return asked if asked is not None else backoff_seconds(attempt, initial, maximum)


def make_wait(initial: float, maximum: float,
              cap: float = MAX_RETRY_AFTER) -> Callable[[Any], float]:
    """:func:`wait_seconds` as a tenacity wait."""

    def wait(retry_state: Any) -> float:
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        if exc is not None:
            return wait_seconds(exc, retry_state.attempt_number, initial, maximum, cap)
        return backoff_seconds(retry_state.attempt_number, initial, maximum)

    return wait


def retrying(max_retries: int, initial: float, maximum: float,
             on_retry: Callable[[Any], None] | None = None, cap: float = MAX_RETRY_AFTER):
    """An ``AsyncRetrying`` that retries transient failures up to ``max_retries`` times."""
    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

    return AsyncRetrying(stop=stop_after_attempt(max_retries + 1),
                         wait=make_wait(initial, maximum, cap),
                         retry=retry_if_exception(is_retryable),
                         before_sleep=on_retry, reraise=True)
