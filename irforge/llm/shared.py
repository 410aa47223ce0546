"""What the engines of one run share across threads: one response cache connection, one pool of
requests in flight, one RPM/TPM budget and one provider-header estimate per model.

``irforge run`` runs independent stages in threads, each stage with its own :class:`Engine`
(its own accounting: requests, tokens and dollars per stage) and its own event loop. Passed
``shared=``, those engines take their slots, buckets and cache from one :class:`RunShare`, so
three stages at once send what one would: at most ``concurrency`` requests in flight and the
configured requests and tokens per minute in total (docs/recipe.md "Concurrency").
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path

from irforge.llm.cache import ResponseCache
from irforge.llm.header_limits import HeaderLimits
from irforge.llm.limits import RateLimiter


class SlotPool:
    """At most ``size`` holders at once, across threads and event loops (an async semaphore
    that any loop may wait on; a freed slot goes to the longest waiter)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a slot pool needs at least one slot")
        self.size = size
        self.held = 0
        self.peak = 0  # most slots held at once (tests and benchmarks read it)
        self._lock = threading.Lock()
        self._waiters: deque[list[object]] = deque()  # [loop, future, handed]

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self.held < self.size and not self._waiters:
                self._take()
                return
            future: asyncio.Future[None] = loop.create_future()
            waiter: list[object] = [loop, future, False]
            self._waiters.append(waiter)
        try:
            await future
        except asyncio.CancelledError:
            with self._lock:
                handed = bool(waiter[2])
                if not handed:
                    self._waiters.remove(waiter)
            if handed:  # the slot came as the wait was cancelled: pass it on
                self.release()
            raise

    def release(self) -> None:
        with self._lock:
            if not self._waiters:
                self.held -= 1
                return
            waiter = self._waiters.popleft()
            waiter[2] = True  # the slot moves to the waiter: ``held`` stays
        loop, future = waiter[0], waiter[1]
        assert isinstance(loop, asyncio.AbstractEventLoop) and isinstance(future, asyncio.Future)
        loop.call_soon_threadsafe(_wake, future)

    def _take(self) -> None:
        self.held += 1
        self.peak = max(self.peak, self.held)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class SharedHeaderLimits(HeaderLimits):
    """:class:`HeaderLimits` safe to update from several threads (one estimate per model)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock)
        self._lock = threading.RLock()

    def delay_for(self, tokens: int) -> float:
        with self._lock:
            return super().delay_for(tokens)

    def take(self, tokens: int) -> None:
        with self._lock:
            super().take(tokens)

    def observe(self, headers: Mapping[str, str] | None) -> None:
        with self._lock:
            super().observe(headers)


class SharedRateLimiter(RateLimiter):
    """:class:`RateLimiter` whose buckets any thread's loop may draw from: the check and the
    take happen under one thread lock, the wait outside it."""

    def __init__(self, rpm: float | None = None, tpm: float | None = None) -> None:
        super().__init__(rpm, tpm)
        self._thread_lock = threading.Lock()

    async def acquire(self, tokens: int = 0, headers: HeaderLimits | None = None) -> None:
        """Block until one request fits the shared buckets and ``headers`` (the model's)."""
        while True:
            with self._thread_lock:
                delay = self.delay(tokens, headers)
                if delay <= 0:
                    self.take_now(tokens, headers)
                    return
            self.waited += delay
            await self.sleep(delay)


class RunShare:
    """The resources every engine of one run draws on (see the module docstring)."""

    def __init__(self, concurrency: int | None = None, rpm: float | None = None,
                 tpm: float | None = None) -> None:
        self.concurrency = concurrency
        self.rpm, self.tpm = rpm, tpm
        self._lock = threading.Lock()
        self._slots: SlotPool | None = None
        self._limiter: SharedRateLimiter | None = None
        self._caches: dict[Path, ResponseCache] = {}
        self._headers: dict[tuple[str, str], SharedHeaderLimits] = {}

    def slots(self, engine_concurrency: int) -> SlotPool:
        """The run's one pool; sized by the run's concurrency, else by the first engine's."""
        with self._lock:
            if self._slots is None:
                self._slots = SlotPool(self.concurrency or engine_concurrency)
            return self._slots

    def limiter(self, rpm: float | None, tpm: float | None) -> SharedRateLimiter:
        """The run's one RPM/TPM budget (the run's figures, else the first engine's)."""
        with self._lock:
            if self._limiter is None:
                self._limiter = SharedRateLimiter(self.rpm or rpm, self.tpm or tpm)
            return self._limiter

    def cache(self, path: Path) -> ResponseCache:
        """One connection per cache file, closed by :meth:`close`, not by the engines."""
        key = Path(path).resolve()
        with self._lock:
            if key not in self._caches:
                self._caches[key] = ResponseCache(key)
            return self._caches[key]

    def header_limits(self, model: str, api_base: str | None) -> SharedHeaderLimits:
        """The provider's rate-limit estimate for one model at one endpoint."""
        with self._lock:
            return self._headers.setdefault((model, api_base or ""), SharedHeaderLimits())

    def close(self) -> None:
        with self._lock:
            caches, self._caches = list(self._caches.values()), {}
        for cache in caches:
            cache.close()

    def __enter__(self) -> RunShare:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
