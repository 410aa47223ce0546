from __future__ import annotations

from pathlib import Path

import pytest

from irforge.core.errors import IrforgeError
from irforge.llm.settings import (
    load_config,
    resolve_cache_path,
    resolve_model,
    strip_credentials,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("IRFORGE_MODEL", "IRFORGE_API_BASE", "IRFORGE_CONFIG", "IRFORGE_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_default_is_the_embedded_demo_grade_model() -> None:
    spec = resolve_model(config={})
    assert spec.backend == "llama" and spec.demo_grade
    assert spec.gguf_path is not None and spec.gguf_path.suffix == ".gguf"


def test_argument_beats_environment_beats_config(monkeypatch: pytest.MonkeyPatch) -> None:
    config = {"model": "ollama/from-config", "api_base": "http://config:1"}
    assert resolve_model(config=config).name == "ollama/from-config"
    monkeypatch.setenv("IRFORGE_MODEL", "openai/from-env")
    monkeypatch.setenv("IRFORGE_API_BASE", "http://env:2/v1")
    spec = resolve_model(config=config)
    assert (spec.name, spec.api_base, spec.backend) == ("openai/from-env", "http://env:2/v1",
                                                        "litellm")
    assert resolve_model("openai/arg", config=config).name == "openai/arg"


def test_config_file_is_read_from_irforge_toml(tmp_path: Path) -> None:
    (tmp_path / "irforge.toml").write_text('[llm]\nmodel = "openai/x"\nconcurrency = 16\n')
    assert load_config() == {"model": "openai/x", "concurrency": 16}
    (tmp_path / "irforge.toml").write_text("[llm\n")
    with pytest.raises(IrforgeError, match="not valid TOML"):
        load_config()


def test_gguf_paths_are_checked(tmp_path: Path) -> None:
    with pytest.raises(IrforgeError, match="not found"):
        resolve_model(f"gguf:{tmp_path / 'missing.gguf'}", config={})
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    spec = resolve_model(f"gguf:{model}", config={})
    assert spec.backend == "llama" and not spec.demo_grade and spec.gguf_path == model


def test_cache_path_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    # never the current directory: the benchmark folder, else the user cache
    assert resolve_cache_path(bench_dir=tmp_path / "b") == tmp_path / "b/.irforge/cache.sqlite"
    assert resolve_cache_path() == tmp_path / "xdg" / "irforge" / "cache.sqlite"
    monkeypatch.setenv("IRFORGE_CACHE", "/tmp/env.sqlite")
    assert resolve_cache_path() == Path("/tmp/env.sqlite")
    assert resolve_cache_path("arg.sqlite") == Path("arg.sqlite")
    assert resolve_cache_path(bench_dir=tmp_path / "b") == Path("/tmp/env.sqlite")


def test_credentials_are_stripped_from_urls_in_manifests() -> None:
    assert strip_credentials("https://user:pw@host:8080/v1?key=abc") == "https://host:8080/v1"
    spec = resolve_model("openai/m", api_base="https://u:secret@h/v1", config={})
    assert "secret" not in str(spec.public())


def test_engine_cache_defaults_to_the_benchmark_folder(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    from irforge.llm.options import engine_from_options

    monkeypatch.chdir(tmp_path)
    with engine_from_options(model="openai/any", bench_dir=tmp_path / "bench",
                             config={}) as engine:
        assert engine.cache is not None
        assert Path(engine.cache.path) == tmp_path / "bench" / ".irforge" / "cache.sqlite"
    assert not (tmp_path / ".irforge").exists()
