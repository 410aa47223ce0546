from __future__ import annotations

import pytest

from irforge.llm.settings import embedded_gguf


@pytest.fixture(scope="session")
def embedded_model_path():
    """The shipped GGUF; loading it happens once per session inside the engine backend."""
    return embedded_gguf()


@pytest.fixture(params=["direct", "litellm"])
def transport(request: pytest.FixtureRequest) -> str:
    """Both remote paths: the direct OpenAI-compatible one and litellm (routing.py)."""
    return request.param
