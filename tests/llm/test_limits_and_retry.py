from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from irforge.llm.limits import RateLimiter, TokenBucket
from irforge.llm.retry import is_retryable, make_wait, retry_after_seconds


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_rpm_limiter_spaces_requests_at_the_configured_rate() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rpm=120, clock=clock, sleep=clock.sleep)  # 2 per second

    async def burst() -> list[float]:
        times = []
        for _ in range(7):
            await limiter.acquire()
            times.append(clock.now)
        return times

    times = asyncio.run(burst())
    # a full bucket allows two at once, then one every half second
    assert times == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5])


def test_tpm_limiter_waits_for_tokens_and_lets_a_huge_request_through() -> None:
    clock = FakeClock()
    limiter = RateLimiter(tpm=6000, clock=clock, sleep=clock.sleep)  # 100 tokens a second

    async def calls() -> list[float]:
        times = []
        for tokens in (100, 50, 50, 500):
            await limiter.acquire(tokens)
            times.append(clock.now)
        return times

    assert asyncio.run(calls()) == pytest.approx([0.0, 0.5, 1.0, 2.0])


def test_bucket_rejects_non_positive_limits() -> None:
    with pytest.raises(ValueError):
        TokenBucket(0)


def error(status: int, headers: dict[str, str] | None = None) -> Exception:
    exc = Exception(f"status {status}")
    exc.status_code = status  # type: ignore[attr-defined]
    exc.response = SimpleNamespace(status_code=status,  # type: ignore[attr-defined]
                                   headers=headers or {})
    return exc


@pytest.mark.parametrize(("status", "expected"), [(429, True), (500, True), (503, True),
                                                  (408, True), (400, False), (401, False),
                                                  (404, False)])
def test_retryable_statuses(status: int, expected: bool) -> None:
    assert is_retryable(error(status)) is expected


def test_timeouts_and_connection_errors_are_retryable() -> None:
    assert is_retryable(asyncio.TimeoutError())
    assert is_retryable(ConnectionResetError())
    assert not is_retryable(ValueError("bad schema"))


def test_retry_after_forms() -> None:
    assert retry_after_seconds(error(429, {"retry-after": "3"})) == 3.0
    assert retry_after_seconds(error(429, {"retry-after-ms": "1500"})) == 1.5
    assert retry_after_seconds(error(429, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0
    assert retry_after_seconds(error(500)) is None


def test_wait_prefers_retry_after_over_backoff() -> None:
    wait = make_wait(initial=0.5, maximum=4.0)

    def state(exc: Exception, attempt: int) -> SimpleNamespace:
        outcome = SimpleNamespace(exception=lambda: exc)
        return SimpleNamespace(outcome=outcome, attempt_number=attempt)

    assert wait(state(error(429, {"retry-after": "7"}), 1)) == 7.0
    waits = [wait(state(error(500), attempt)) for attempt in range(1, 30)]
    assert all(0 <= w <= 4.0 for w in waits)
    assert len(set(waits)) > 1, "backoff has jitter"
