"""The engine's CLI verbs, run through the real typer app against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.llm.backends import grammar_schema
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

runner = CliRunner()


@pytest.fixture()
def server():
    script = Script(default=Action.answer({"answer": "Paris"}),
                    rules=(Rule("refuse me", (Action.refusal("no"),)),))
    with ScriptedServer(script) as running:
        yield running


def invoke(*args: str):
    return runner.invoke(build_app(), list(args), catch_exceptions=False)


def test_llm_try_then_cache_stats_and_clear(server: ScriptedServer, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache.sqlite")
    common = ["--model", "openai/scripted", "--api-base", server.url, "--cache", cache]
    first = invoke("llm", "try", "Capital of France?", *common)
    assert first.exit_code == 0, first.output
    assert first.output.startswith("ok: Paris") and "DEMO GRADE" not in first.output
    second = invoke("llm", "try", "Capital of France?", *common, "--json")
    assert json.loads(second.output)["cached"] is True
    assert len(server.log) == 1

    refused = invoke("llm", "try", "refuse me", *common)
    assert refused.exit_code == 1 and refused.output.startswith("refused")

    stats = json.loads(invoke("cache", "stats", "--cache", cache, "--json").output)
    assert stats["entries"] == 2 and stats["recorded_hits"] == 1
    assert stats["by_model"]["openai/scripted"]["entries"] == 2
    cleared = invoke("cache", "clear", "--cache", cache, "--model", "openai/scripted", "--yes")
    assert "deleted 2 entries" in cleared.output
    assert "0 entries" in invoke("cache", "stats", "--cache", cache).output


def test_llm_try_dry_run_sends_nothing(server: ScriptedServer, tmp_path: Path) -> None:
    result = invoke("llm", "try", "hello", "--model", "openai/scripted", "--api-base",
                    server.url, "--cache", str(tmp_path / "c.sqlite"), "--dry-run")
    assert result.exit_code == 0 and "1 requests to openai/scripted" in result.output
    assert server.log == []


def test_prompts_list_and_show() -> None:
    listing = invoke("prompts", "list").output
    assert "llm.try" in listing and "demo.keywords" in listing
    shown = invoke("prompts", "show", "demo.keywords", "--var", "title=Storm news").output
    assert "Document title: Storm news" in shown and "sha256=" in shown
    assert "--- system ---" in shown and "--- user ---" in shown


def test_grammar_schema_drops_bounds_that_overflow_llama_cpp() -> None:
    schema = {"type": "object", "properties": {
        "text": {"type": "string", "maxLength": 2000, "minLength": 1},
        "tags": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 9}},
        "many": {"type": "array", "maxItems": 500}}}
    cleaned = grammar_schema(schema)
    assert cleaned["properties"]["text"] == {"type": "string"}
    assert cleaned["properties"]["tags"] == {"type": "array", "maxItems": 5,
                                             "items": {"type": "string"}}
    assert cleaned["properties"]["many"] == {"type": "array"}
    assert schema["properties"]["text"]["maxLength"] == 2000, "input left untouched"


def test_llm_try_transport_flag_picks_the_path(server: ScriptedServer, tmp_path: Path) -> None:
    from irforge.core.errors import IrforgeError

    common = ["--model", "openai/scripted", "--api-base", server.url, "--no-cache", "--json"]
    for transport in ("litellm", "direct"):
        result = invoke("llm", "try", "hello", *common, "--transport", transport)
        assert result.exit_code == 0 and json.loads(result.output)["status"] == "ok"
    assert len(server.log) == 2
    with pytest.raises(IrforgeError, match="unknown transport"):
        invoke("llm", "try", "hello", *common, "--transport", "fast")
