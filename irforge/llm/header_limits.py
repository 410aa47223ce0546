"""Adaptive rate limiting from the provider's ``x-ratelimit-*`` response headers.

OpenAI (and vLLM, Azure, Groq and most gateways) report on every response how many requests
and tokens are left (``x-ratelimit-remaining-requests`` / ``-tokens``), the limit
(``x-ratelimit-limit-*``) and the time until the allowance is whole again
(``x-ratelimit-reset-*``: ``"1s"``, ``"6m0s"``, ``"20ms"``). :class:`HeaderLimits` keeps an
estimate of what is left, refilled at the rate those headers imply and lowered by every
request sent, so the engine waits instead of collecting 429s. It works on top of the
configured RPM/TPM buckets (irforge/llm/limits.py): a request waits for both.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

KINDS = ("requests", "tokens")
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0,
                 "h": 3600.0, "d": 86400.0}
MAX_WAIT = 300.0  # never trust a header into a longer pause than this


def parse_duration(text: str | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds from a reset header: ``"20ms"``, ``"1s"``, ``"6m0s"``, ``"1h2m3.5s"``,
    a plain number of seconds, or an RFC 3339 timestamp; None when unreadable."""
    if text is None:
        return None
    value = str(text).strip()
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    parts = _DURATION.findall(value)
    if parts and "".join(number + unit for number, unit in parts) == value.replace(" ", ""):
        return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(when.timestamp() - now(), 0.0)


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(str(text).strip())
    except ValueError:
        return None


@dataclass
class _Allowance:
    """What is left of one kind of limit, as last reported and since spent locally."""

    level: float
    limit: float | None
    rate: float  # units regained per second (0 when unknown)
    reset_at: float  # clock time the allowance is whole again
    updated: float

    def current(self, now: float) -> float:
        if now >= self.reset_at:
            return self.limit if self.limit is not None else float("inf")
        regained = self.level + (now - self.updated) * self.rate
        return min(regained, self.limit) if self.limit is not None else regained

    def delay_for(self, amount: float, now: float) -> float:
        level = self.current(now)
        needed = min(amount, self.limit) if self.limit else amount
        if level >= needed:
            return 0.0
        if self.rate > 0:
            return min((needed - level) / self.rate, max(self.reset_at - now, 0.0), MAX_WAIT)
        return min(max(self.reset_at - now, 0.0), MAX_WAIT)


class HeaderLimits:
    """The provider's own view of the rate limits, kept current from response headers."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.allowances: dict[str, _Allowance] = {}
        self.in_flight = 0
        self.observed = 0  # responses that carried rate-limit headers

    @property
    def active(self) -> bool:
        return bool(self.allowances)

    def delay_for(self, tokens: int) -> float:
        """Seconds to wait before one request of ``tokens`` tokens fits what is left."""
        if not self.allowances:
            return 0.0
        now = self.clock()
        delay = 0.0
        for kind, amount in (("requests", 1), ("tokens", tokens)):
            allowance = self.allowances.get(kind)
            if allowance is not None and amount:
                delay = max(delay, allowance.delay_for(amount, now))
        return delay

    def take(self, tokens: int) -> None:
        """Count one request being sent (before its response reports it)."""
        self.in_flight += 1
        now = self.clock()
        for kind, amount in (("requests", 1), ("tokens", tokens)):
            allowance = self.allowances.get(kind)
            if allowance is not None:
                allowance.level = allowance.current(now) - amount
                allowance.updated = now

    def observe(self, headers: Mapping[str, str] | None) -> None:
        """One response came back (``headers`` None: it failed without any)."""
        self.in_flight = max(self.in_flight - 1, 0)
        if not headers:
            return
        now = self.clock()
        seen = False
        for kind in KINDS:
            remaining = _number(headers.get(f"x-ratelimit-remaining-{kind}"))
            if remaining is None:
                continue
            seen = True
            limit = _number(headers.get(f"x-ratelimit-limit-{kind}"))
            reset = parse_duration(headers.get(f"x-ratelimit-reset-{kind}"))
            if reset is None:
                reset = 1.0  # no horizon given: trust the figure for a second
            reset = min(reset, MAX_WAIT)
            if limit is not None and remaining > limit:
                limit = remaining
            rate = (limit - remaining) / reset if limit is not None and reset > 0 else 0.0
            # requests still in flight may not be counted in ``remaining`` yet: assume not
            reported = remaining - (self.in_flight if kind == "requests" else 0)
            previous = self.allowances.get(kind)
            level = reported if previous is None else min(previous.current(now), reported)
            self.allowances[kind] = _Allowance(level=level, limit=limit, rate=rate,
                                               reset_at=now + reset, updated=now)
        if seen:
            self.observed += 1
