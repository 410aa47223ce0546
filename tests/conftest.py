"""Shared fixtures: offline settings for every test, paths to the shipped and shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def comlq_dir() -> Path:
    """The ComLQ authors' released benchmark (BEIR layout), beside the checkout."""
    path = SHARED_DATA / "comlq"
    if not (path / "corpus.jsonl").is_file():
        pytest.fail(f"shared data not found at {path}: tests expect ../shared beside the checkout")
    return path


@pytest.fixture(scope="session")
def embedder():
    """The bundled all-MiniLM-L6-v2, loaded once per session."""
    from irforge.corpus.embed import Embedder

    model = Embedder("minilm")
    model(["warm up"])
    return model


@pytest.fixture(scope="session")
def embedded_model_path() -> Path:
    """The shipped GGUF; loading it happens once per session inside the engine backend."""
    from irforge.llm.settings import embedded_gguf

    return embedded_gguf()
