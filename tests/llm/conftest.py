"""Fixtures of the engine tests."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["direct", "litellm"])
def transport(request: pytest.FixtureRequest) -> str:
    """Both remote paths: the direct OpenAI-compatible one and litellm (routing.py)."""
    return request.param
