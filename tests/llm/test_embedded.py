"""End to end through the real embedded model (SmolLM2 via llama.cpp); no mocks."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from irforge.llm import Engine
from irforge.llm.cache import ResponseCache


class Keywords(BaseModel):
    summary: str = Field(max_length=300)
    keywords: list[str] = Field(max_length=5)


DOC = {"title": "Flood warnings on the Severn",
       "text": "The Environment Agency issued flood warnings for towns along the river Severn "
               "after two days of heavy rain."}


def test_structured_call_through_llama_cpp_is_valid_cached_and_demo_grade(
        tmp_path: Path, embedded_model_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    engine = Engine(cache_path=cache_path, max_tokens=160)
    assert engine.spec.gguf_path == embedded_model_path
    [result] = engine.run([DOC], "demo.keywords", Keywords, step="test.embedded")
    assert result.status == "ok", result.error
    assert isinstance(result.value, Keywords)
    assert 1 <= len(result.value.keywords) <= 5
    assert result.demo_grade is True and result.cached is False and result.attempts >= 1
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert result.raw and result.raw.lstrip().startswith("{")

    [again] = engine.run([DOC], "demo.keywords", Keywords, step="test.embedded")
    assert again.cached is True and again.attempts == 0
    assert again.value == result.value
    manifest = engine.manifest_entry()
    assert manifest["demo_grade"] is True and manifest["calls"] == result.attempts
    assert manifest["prompts"]["demo.keywords"] == result.prompt_hash
    engine.close()
    with ResponseCache(cache_path) as cache:
        assert cache.stats()["entries"] == result.attempts


def test_any_gguf_by_path_runs_in_process_and_is_not_labelled_demo_grade(
        tmp_path: Path, embedded_model_path: Path) -> None:
    with Engine(f"gguf:{embedded_model_path}", cache_path=tmp_path / "c.sqlite",
                max_tokens=160) as engine:
        assert engine.spec.backend == "llama" and engine.concurrency == 1
        [result] = engine.run([DOC], "demo.keywords", Keywords)
    assert result.status in {"ok", "invalid", "truncated"}, result.error
    assert result.raw and result.demo_grade is False
    assert result.model.startswith(f"gguf:{embedded_model_path.name}:")
