"""The direct OpenAI-compatible path: routing, keys, request body, parameter fallback."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.core.errors import IrforgeError
from irforge.llm import Engine, backends
from irforge.llm.routing import choose_transport, provider_key
from irforge.llm.settings import resolve_model
from irforge.testing.scripted import Action, Script, ScriptedServer


class Label(BaseModel):
    label: int


ANSWER = Action.answer({"label": 1})
FAST = {"backoff_initial": 0.01, "backoff_max": 0.05, "timeout": 2.0, "progress": False}
KEY_VARIABLES = ("OPENAI_API_KEY", "IRFORGE_API_KEY", "IRFORGE_TRANSPORT", "HOSTED_VLLM_API_KEY",
                 "OPENAI_BASE_URL")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("model", "api_base", "expected"), [
    ("openai/gpt-4o-mini", None, "direct"),
    ("openai/Qwen2.5-7B", "http://127.0.0.1:8000/v1", "direct"),
    ("hosted_vllm/llama", "http://127.0.0.1:8000/v1", "direct"),
    ("Qwen2.5-7B-Instruct", "http://127.0.0.1:8000/v1", "direct"),
    ("Qwen/Qwen2.5-7B-Instruct", "http://127.0.0.1:8000/v1", "direct"),
    ("anthropic/claude-3-5-haiku-20241022", None, "litellm"),
    ("gemini/gemini-1.5-flash", None, "litellm"),
    ("ollama/llama3.1", "http://localhost:11434", "litellm"),
    ("gpt-4o-mini", None, "litellm"),
])
def test_auto_routing_by_model_prefix(model: str, api_base: str | None, expected: str) -> None:
    assert choose_transport(model, api_base, "auto") == expected
    assert resolve_model(model, api_base, config={}).transport == expected


def test_transport_can_be_forced_by_argument_environment_or_config(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_model("openai/x", config={"transport": "litellm"}).transport == "litellm"
    monkeypatch.setenv("IRFORGE_TRANSPORT", "litellm")
    assert resolve_model("openai/x", config={}).transport == "litellm"
    assert resolve_model("openai/x", config={}, transport="direct").transport == "direct"
    assert resolve_model("ollama/m", "http://h:1/v1", {}, "direct").transport == "direct"
    with pytest.raises(IrforgeError, match="give --api-base"):
        resolve_model("anthropic/claude-3-5-haiku-20241022", config={}, transport="direct")
    with pytest.raises(IrforgeError, match="unknown transport 'fast'"):
        resolve_model("openai/x", config={}, transport="fast")


def test_key_is_the_configured_one_else_the_providers_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert provider_key("openai/x", None) is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert provider_key("openai/x", None) == "sk-from-env"
    assert provider_key("Qwen2.5", None) == "sk-from-env"
    assert provider_key("openai/x", "sk-configured") == "sk-configured"
    assert provider_key("hosted_vllm/x", None) is None, "another provider's key is not sent"
    monkeypatch.setenv("HOSTED_VLLM_API_KEY", "vllm-key")
    assert provider_key("hosted_vllm/x", None) == "vllm-key"


def run_one(server: ScriptedServer, tmp_path: Path, **options) -> Engine:
    with Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.sqlite",
                **{**FAST, **options}) as engine:
        [result] = engine.run([{"prompt": "hello"}], "llm.try", Label)
    assert result.status == "ok", result.error
    return engine


def test_the_providers_key_reaches_the_server_and_none_is_never_invented(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, transport: str) -> None:
    # a server without a key gets no Authorization header on either path (litellm's OpenAI
    # client insists on a key: the engine must not let a made-up one reach the wire)
    monkeypatch.setattr(backends, "KEY_REQUIRED", set())  # as in a fresh process
    with ScriptedServer(Script(default=ANSWER)) as server:
        with Engine("openai/scripted", api_base=server.url, use_cache=False, concurrency=3,
                    transport=transport, **FAST) as engine:
            first = engine.run([{"prompt": f"first {i}"} for i in range(3)], "llm.try", Label)
        assert [result.status for result in first] == ["ok"] * 3
        run_one(server, tmp_path, use_cache=False, transport=transport)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env-0123456789")
        run_one(server, tmp_path, use_cache=False, transport=transport)
        monkeypatch.setenv("IRFORGE_API_KEY", "sk-irforge-0123456789")
        run_one(server, tmp_path, use_cache=False, transport=transport)
        run_one(server, tmp_path, use_cache=False, api_key="sk-argument-0123456789",
                transport=transport)
        sent = [entry.authorization for entry in server.log]
    assert sent == ["", "", "", "", "Bearer sk-env-0123456789", "Bearer sk-irforge-0123456789",
                    "Bearer sk-argument-0123456789"]


def test_request_body_matches_what_litellm_sends(tmp_path: Path) -> None:
    with ScriptedServer(Script(default=ANSWER)) as server:
        run_one(server, tmp_path / "d", transport="direct", max_tokens=77, seed=3)
        run_one(server, tmp_path / "l", transport="litellm", max_tokens=77, seed=3)
        direct, via_litellm = server.log
    assert direct.params["model"] == "scripted", "the routing prefix is not sent"
    assert direct.messages == via_litellm.messages
    for name in ("model", "temperature", "max_tokens", "seed", "response_format"):
        assert direct.params[name] == via_litellm.params[name], name
    assert direct.params["response_format"]["json_schema"]["schema"] == \
        Label.model_json_schema()


def test_both_paths_share_one_cache(tmp_path: Path) -> None:
    items = [{"prompt": f"shared {i}"} for i in range(5)]
    with ScriptedServer(Script(default=ANSWER)) as server:
        for transport in ("direct", "litellm"):
            with Engine("openai/scripted", api_base=server.url, transport=transport,
                        cache_path=tmp_path / "c.sqlite", **FAST) as engine:
                results = engine.run(items, "llm.try", Label)
            assert all(r.status == "ok" for r in results)
        assert len(server.log) == len(items), "the second path answered from the cache"
    assert all(r.cached for r in results)


def test_a_refused_response_format_falls_back_to_instructions_once(tmp_path: Path) -> None:
    script = Script(default=Action.answer('Sure: {"label": 4}'),
                    unsupported=("response_format", "seed"))
    items = [{"prompt": f"strict server {i}"} for i in range(4)]
    with ScriptedServer(script) as server, \
            Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.sqlite",
                   concurrency=1, **FAST) as engine:
        results = engine.run(items, "llm.try", Label)
        actions = [entry.action for entry in server.log]
        last = server.log[-1]
        manifest = engine.manifest_entry()
    assert all(r.status == "ok" and r.value == Label(label=4) for r in results)
    # one refusal per parameter, then every request goes through without it
    assert actions.count("unsupported") == 2 and actions.count("answer") == len(items)
    assert "response_format" not in last.params and "seed" not in last.params
    assert '"label"' in last.messages[0]["content"], "the schema is still in the prompt"
    assert any("response_format" in note for note in manifest["notes"])
    assert manifest["transport"] == "direct"


def test_the_encoded_body_is_the_body(tmp_path: Path) -> None:
    import json

    from irforge.llm.backends import make_backend

    spec = resolve_model("openai/m", "http://127.0.0.1:9/v1", config={})
    backend = make_backend(spec)
    schema = Label.model_json_schema()
    messages = [{"role": "user", "content": "é \" \\n"}]
    params = {"temperature": 0.0, "max_tokens": 5, "seed": 0}
    assert json.loads(backend.encode(messages, schema, params)) == \
        backend.body(messages, schema, params)
    other = {**params, "max_tokens": 9}
    assert json.loads(backend.encode(messages, schema, other))["max_tokens"] == 9


def test_proxy_comes_from_the_environment_unless_the_host_is_exempt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from irforge.llm.direct import env_proxy

    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY",
                 "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert env_proxy("https://api.openai.com/v1/chat/completions") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    assert env_proxy("https://api.openai.com/v1/chat/completions") == \
        "http://proxy.internal:3128"
    assert env_proxy("http://127.0.0.1:8000/v1/chat/completions") is None, "http: no proxy"
    monkeypatch.setenv("NO_PROXY", "api.openai.com")
    assert env_proxy("https://api.openai.com/v1/chat/completions") is None


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_credentials_in_the_api_base_travel_as_an_authorization_header(
        monkeypatch: pytest.MonkeyPatch, transport: str) -> None:
    """Issue 37: ``http://user:pass@host/v1`` failed every call on the direct path (aiohttp:
    'Cannot combine AUTHORIZATION header with ... credentials encoded in URL'), exit 5."""
    from base64 import b64encode

    monkeypatch.delenv("IRFORGE_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(backends, "KEY_REQUIRED", set())
    with ScriptedServer(Script(default=ANSWER)) as server:
        base = server.url.replace("http://", "http://ops:p%40ss-word@")
        with Engine("openai/scripted", api_base=base, use_cache=False, transport=transport,
                    **FAST) as engine:
            [result] = engine.run([{"prompt": "one"}], "llm.try", Label)
        assert result.status == "ok", result.error
        sent = {entry.authorization for entry in server.log}
    assert sent == {"Basic " + b64encode(b"ops:p@ss-word").decode()}
