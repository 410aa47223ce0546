"""Requests-per-minute and tokens-per-minute limits as async token buckets.

A :class:`RateLimiter` may also follow the provider's rate-limit headers
(irforge/llm/header_limits.py): a request then waits for the configured buckets and for what
the provider says is left.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from irforge.llm.header_limits import HeaderLimits


class TokenBucket:
    """Refills ``per_minute / 60`` units a second up to one second's worth (min. one request).

    A take larger than the capacity waits for a full bucket and then goes into debt, so one
    large request is never blocked forever.
    """

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        if per_minute <= 0:
            raise ValueError("a rate limit must be positive")
        self.rate = per_minute / 60.0
        self.capacity = max(self.rate, 1.0)
        self.level = self.capacity
        self.clock = clock
        self.updated = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self.updated) * self.rate)
        self.updated = now

    def delay_for(self, amount: float) -> float:
        """Seconds to wait before ``amount`` can be taken (0 when it can be taken now)."""
        self._refill()
        needed = min(amount, self.capacity)
        return 0.0 if self.level >= needed else (needed - self.level) / self.rate

    def take(self, amount: float) -> None:
        self._refill()
        self.level -= amount


class RateLimiter:
    """Waits until both the request and the token budget of the current minute allow a call."""

    def __init__(self, rpm: float | None = None, tpm: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 headers: HeaderLimits | None = None) -> None:
        self.requests = TokenBucket(rpm, clock) if rpm else None
        self.tokens = TokenBucket(tpm, clock) if tpm else None
        self.headers = headers
        self.sleep = sleep
        self._lock = asyncio.Lock()
        self.waited = 0.0

    async def acquire(self, tokens: int = 0) -> None:
        """Block until one request of ``tokens`` estimated tokens fits every limit."""
        headers = self.headers
        if self.requests is None and self.tokens is None:
            if headers is None:
                return
            if not headers.active:  # nothing reported yet: only count what is sent
                headers.take(tokens)
                return
        async with self._lock:
            while True:
                delay = self.delay(tokens, headers)
                if delay <= 0:
                    break
                self.waited += delay
                await self.sleep(delay)
            self.take_now(tokens, headers)

    def delay(self, tokens: int, headers: HeaderLimits | None) -> float:
        """Seconds until one request of ``tokens`` fits the buckets and ``headers``."""
        delay = 0.0
        if self.requests is not None:
            delay = max(delay, self.requests.delay_for(1))
        if self.tokens is not None and tokens:
            delay = max(delay, self.tokens.delay_for(tokens))
        if headers is not None:
            delay = max(delay, headers.delay_for(tokens))
        return delay

    def take_now(self, tokens: int, headers: HeaderLimits | None) -> None:
        """Count one request of ``tokens`` as sent."""
        if self.requests is not None:
            self.requests.take(1)
        if self.tokens is not None and tokens:
            self.tokens.take(tokens)
        if headers is not None:
            headers.take(tokens)
