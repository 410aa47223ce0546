"""Adaptive rate limiting from x-ratelimit-* headers: parsing, the estimate, and over HTTP."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.llm import Engine
from irforge.llm.header_limits import HeaderLimits, parse_duration
from irforge.llm.limits import RateLimiter
from irforge.testing.scripted import Action, Script, ScriptedServer
from irforge.testing.scripted_limits import format_duration


class Label(BaseModel):
    label: int


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.mark.parametrize(("text", "seconds"), [
    ("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("8.64s", 8.64),
    ("500us", 0.0005), ("2", 2.0), ("0.25", 0.25), ("1m30s", 90.0),
])
def test_reset_durations_in_every_form_providers_send(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


def test_unreadable_durations_and_timestamps() -> None:
    assert parse_duration(None) is None and parse_duration("") is None
    assert parse_duration("soon") is None and parse_duration("1s garbage") is None
    assert parse_duration("2030-01-01T00:00:10Z", now=lambda: 1893456000.0) == 10.0


@pytest.mark.parametrize("seconds", [0.02, 0.5, 1.0, 8.64, 60.0, 360.0, 3723.5])
def test_scripted_server_durations_read_back(seconds: float) -> None:
    assert parse_duration(format_duration(seconds)) == pytest.approx(seconds, abs=1e-3)
    assert format_duration(360.0) == "6m0s" and format_duration(0.02) == "20ms"


def headers(remaining: int, limit: int, reset: str, kind: str = "requests") -> dict[str, str]:
    return {f"x-ratelimit-remaining-{kind}": str(remaining),
            f"x-ratelimit-limit-{kind}": str(limit), f"x-ratelimit-reset-{kind}": reset}


def test_exhausted_requests_wait_for_the_rate_the_headers_imply() -> None:
    clock = FakeClock()
    limits = HeaderLimits(clock)
    assert limits.delay_for(10) == 0.0, "nothing reported: nothing to wait for"
    limits.take(10)
    # 60 a minute, 2 left, full again in 58 s: one request back every second
    limits.observe(headers(2, 60, "58s"))
    assert limits.delay_for(10) == 0.0
    limits.take(10)
    limits.take(10)
    assert limits.delay_for(10) == pytest.approx(1.0)
    clock.now += 0.5
    assert limits.delay_for(10) == pytest.approx(0.5)
    clock.now += 0.5
    assert limits.delay_for(10) == 0.0


def test_requests_in_flight_are_assumed_uncounted_by_the_report() -> None:
    limits = HeaderLimits(FakeClock())
    for _ in range(5):
        limits.take(0)
    limits.observe(headers(4, 100, "1s"))  # 4 left, but 4 more of ours are still in flight
    assert limits.allowances["requests"].level == 0
    assert limits.delay_for(0) > 0


def test_tokens_limit_and_reset_without_a_limit_header() -> None:
    clock = FakeClock()
    limits = HeaderLimits(clock)
    limits.observe({"x-ratelimit-remaining-tokens": "100", "x-ratelimit-reset-tokens": "2s"})
    assert limits.delay_for(50) == 0.0
    limits.take(50)
    assert limits.delay_for(80) == pytest.approx(2.0), "no limit: wait for the reset"
    clock.now += 2.0
    assert limits.delay_for(80) == 0.0


def test_rate_limiter_waits_for_the_headers_on_top_of_rpm() -> None:
    clock = FakeClock()
    limits = HeaderLimits(clock)
    limiter = RateLimiter(rpm=600, clock=clock, sleep=clock.sleep, headers=limits)
    limits.observe(headers(1, 60, "59s"))

    async def three() -> list[float]:
        times = []
        for _ in range(3):
            await limiter.acquire(5)
            times.append(clock.now)
        return times

    assert asyncio.run(three()) == pytest.approx([0.0, 1.0, 2.0])


def test_following_the_headers_avoids_429s_over_http(transport: str, tmp_path: Path) -> None:
    """20 requests a second allowed; 50 items with 8 in flight: no 429 once headers are read,
    and a control run that ignores them collects 429s from the same server."""
    items = [{"prompt": f"limited {i}"} for i in range(50)]
    outcomes = {}
    for follow in (True, False):
        script = Script(default=Action.answer({"label": 1}), rate_requests=20, rate_window=1.0)
        with ScriptedServer(script) as server, \
                Engine("openai/scripted", api_base=server.url, transport=transport,
                       cache_path=tmp_path / f"{follow}.sqlite", concurrency=8,
                       rate_headers=follow, max_retries=20, backoff_initial=0.05,
                       backoff_max=0.2, max_tokens=16, progress=False) as engine:
            start = time.monotonic()
            results = engine.run(items, "llm.try", Label)
            outcomes[follow] = (server.app.limits.refused, time.monotonic() - start,
                                engine.header_limits)
        assert all(r.status == "ok" for r in results)
    refused, seconds, limits = outcomes[True]
    assert refused == 0, f"{refused} requests were refused although the headers said so"
    assert limits is not None and limits.observed >= len(items)
    assert seconds >= (len(items) - 20) / 20 * 0.9, "the allowance was respected"
    assert outcomes[False][0] > 0, "the control run shows the server does enforce the limit"
    assert outcomes[False][2] is None
