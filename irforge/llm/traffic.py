"""The gate every request of an engine passes: a slot among ``concurrency`` in flight, then the
RPM/TPM buckets and the provider's header estimate.

An :class:`Engine` owns one :class:`Traffic` for its lifetime, so every call it serves (and,
through :class:`~irforge.llm.shared.RunShare`, every engine of one run) draws on the same
slots and budget: two calls at once never send more than one would. Its parts are safe
across threads and event loops (``run`` may be called from several threads, each with its
own loop).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

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


class Traffic:
    """One engine's slots, rate budget and header estimate (its own, or its run's)."""

    def __init__(self, slots: SlotPool, limiter: SharedRateLimiter,
                 headers: HeaderLimits | None = None) -> None:
        self.slots = slots
        self.limiter = limiter
        self.headers = headers

    @classmethod
    def own(cls, concurrency: int, rpm: float | None, tpm: float | None,
            headers: HeaderLimits | None) -> Traffic:
        """An engine's own gate: ``concurrency`` slots and its RPM/TPM buckets."""
        return cls(SlotPool(concurrency), SharedRateLimiter(rpm, tpm), headers)

    @asynccontextmanager
    async def turn(self, tokens: int) -> AsyncIterator[None]:
        """Hold a slot for one request of ``tokens`` estimated tokens, once the buckets and
        the provider's headers allow it; the slot is freed when the block ends."""
        await self.slots.acquire()
        try:
            await self.limiter.acquire(tokens, self.headers)
            yield
        finally:
            self.slots.release()
