"""Long waits are said once per run on stderr, and never under ``--quiet``."""

from __future__ import annotations

import time

import pytest

from irforge.cli.output import VERBOSITY_ENV
from irforge.llm.waits import Waits


@pytest.fixture(autouse=True)
def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Waits, "told", False)


def _hold_open(waits: Waits, tokens: range) -> None:
    for token in tokens:
        waits._open[token] = time.monotonic() - 60  # opened a minute ago


def test_many_slow_requests_are_announced_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VERBOSITY_ENV, "0")
    said: list[str] = []
    waits = Waits(loud_after=10, say=said.append, notes=[])
    _hold_open(waits, range(14))
    for _ in range(20):
        waits.announce_long()
    _hold_open(waits, range(14, 20))
    waits.announce_long()
    later = Waits(loud_after=10, say=said.append, notes=[])  # the next run of the process
    _hold_open(later, range(3))
    later.announce_long()
    assert len(said) == 1
    assert said[0].startswith("waiting for a request open 60 s") and "14 request(s)" in said[0]


def test_quiet_runs_are_not_told_about_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VERBOSITY_ENV, "-1")
    said: list[str] = []
    waits = Waits(loud_after=10, say=said.append, notes=[])
    _hold_open(waits, range(3))
    waits.announce_long()
    assert said == []


def test_a_short_wait_is_not_announced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VERBOSITY_ENV, "0")
    said: list[str] = []
    waits = Waits(loud_after=10, say=said.append, notes=[])
    waits._open[1] = time.monotonic()
    waits.announce_long()
    assert said == []
