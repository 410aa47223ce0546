"""Fixtures of the engine tests."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["direct", "litellm"])
def transport(request: pytest.FixtureRequest) -> str:
    """Both remote paths: the direct OpenAI-compatible one and litellm (routing.py)."""
    return request.param


@pytest.fixture(autouse=True)
def _long_wait_notice_untold(monkeypatch):
    """Each test is a fresh process for the once-per-process long-wait notice."""
    from irforge.llm.waits import Waits

    monkeypatch.setattr(Waits, "told", False)
