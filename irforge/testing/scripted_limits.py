"""Rate limits for the scripted server, reported the way OpenAI reports them.

Requests and tokens each come from a bucket that holds ``limit`` and refills continuously
over ``window`` seconds. Every chat answer carries ``x-ratelimit-limit-*``,
``x-ratelimit-remaining-*`` and ``x-ratelimit-reset-*`` (time until the bucket is full, in
OpenAI's form: ``"20ms"``, ``"1s"``, ``"6m0s"``); a request the buckets cannot cover gets 429
with the same headers. A request costs one request and its prompt estimate plus
``max_tokens`` tokens, as OpenAI counts it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any


def format_duration(seconds: float) -> str:
    """``0.02`` -> ``"20ms"``, ``1`` -> ``"1s"``, ``360`` -> ``"6m0s"``, ``8.64`` -> ``"8.64s"``."""
    if seconds < 1:
        return f"{max(math.ceil(seconds * 1000), 0)}ms"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{round(secs, 3):g}s"
    if hours:
        return f"{int(hours)}h{int(minutes)}m{text}"
    if minutes:
        return f"{int(minutes)}m{text}"
    return text


class Bucket:
    """``limit`` units refilled continuously over ``window`` seconds."""

    def __init__(self, limit: float, window: float, clock: Callable[[], float]) -> None:
        self.limit = float(limit)
        self.rate = self.limit / window
        self.level = self.limit
        self.clock = clock
        self.updated = clock()

    def refill(self) -> None:
        now = self.clock()
        self.level = min(self.limit, self.level + (now - self.updated) * self.rate)
        self.updated = now

    def remaining(self) -> int:
        return max(int(self.level), 0)

    def reset_seconds(self) -> float:
        """Until the bucket is full, from the whole units reported as remaining."""
        return (self.limit - self.remaining()) / self.rate


class ScriptedLimits:
    """The request and token buckets of one scripted server."""

    def __init__(self, requests: int, tokens: int, window: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.buckets = {kind: Bucket(limit, window, clock)
                        for kind, limit in (("requests", requests), ("tokens", tokens)) if limit}
        self.refused = 0

    @staticmethod
    def cost(request: dict[str, Any]) -> int:
        """Tokens OpenAI counts against the limit: prompt estimate plus the completion cap."""
        prompt = sum(len(str(m.get("content", ""))) for m in request.get("messages", [])) // 4
        cap = request.get("max_completion_tokens") or request.get("max_tokens") or 16
        return prompt + 1 + int(cap)

    def admit(self, request: dict[str, Any]) -> tuple[bool, dict[str, str]]:
        """Take one request's cost if every bucket covers it; the headers to send either way."""
        amounts = {"requests": 1, "tokens": self.cost(request)}
        for bucket in self.buckets.values():
            bucket.refill()
        allowed = all(bucket.level >= amounts[kind] for kind, bucket in self.buckets.items())
        if allowed:
            for kind, bucket in self.buckets.items():
                bucket.level -= amounts[kind]
        else:
            self.refused += 1
        headers: dict[str, str] = {}
        for kind, bucket in self.buckets.items():
            headers[f"x-ratelimit-limit-{kind}"] = str(int(bucket.limit))
            headers[f"x-ratelimit-remaining-{kind}"] = str(bucket.remaining())
            headers[f"x-ratelimit-reset-{kind}"] = format_duration(bucket.reset_seconds())
        return allowed, headers
