"""What the engines of one run share across threads: one response cache connection, one pool of
requests in flight, one RPM/TPM budget and one provider-header estimate per model.

``irforge run`` runs independent stages in threads, each stage with its own :class:`Engine`
(its own accounting: requests, tokens and dollars per stage) and its own event loop. Passed
``shared=``, those engines take their slots, buckets (one :class:`~irforge.llm.traffic.Traffic`
gate on the run's) and cache from one :class:`RunShare`, so three stages at once send what one
would: at most ``concurrency`` requests in flight and the configured requests and tokens per
minute in total (docs/recipe.md "Concurrency").
"""

from __future__ import annotations

import threading
from pathlib import Path

from irforge.llm.cache import ResponseCache
from irforge.llm.header_limits import HeaderLimits
from irforge.llm.traffic import SharedHeaderLimits, SharedRateLimiter, SlotPool, Traffic


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

    def traffic(self, concurrency: int, rpm: float | None, tpm: float | None,
                headers: HeaderLimits | None) -> Traffic:
        """An engine's gate on the run's slots and budget, with its model's ``headers``."""
        return Traffic(self.slots(concurrency), self.limiter(rpm, tpm), headers)

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
