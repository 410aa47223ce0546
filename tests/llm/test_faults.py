"""Fault injection over real HTTP against the scripted server, on both remote paths
(the direct aiohttp path and litellm; the ``transport`` fixture in conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.llm import Engine
from irforge.llm.cache import ResponseCache
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer


class Label(BaseModel):
    label: int


ANSWER = Action.answer({"label": 1})
FAST_RETRIES = {"backoff_initial": 0.01, "backoff_max": 0.05, "timeout": 1.0, "concurrency": 4,
                "progress": False}

SCRIPT = Script(default=Action.answer({"label": 1}), rules=(
    Rule("item-429", (Action.error(429, retry_after=0.3), Action.answer({"label": 2}))),
    Rule("item-500", (Action.error(500), Action.error(503), Action.answer({"label": 3}))),
    Rule("item-hang", (Action.hang(30), Action.answer({"label": 4}))),
    Rule("item-broken", (Action.broken_body(), Action.answer({"label": 5}))),
    Rule("item-truncated", (Action.truncated('{"label": '),)),
    Rule("item-schema", (Action.answer({"label": "high"}), Action.answer({"label": 6}))),
    Rule("item-prose", (Action.answer("Sure, the label is one."),)),
    Rule("item-refusal", (Action.refusal("I can't help with that."),)),
))
ITEMS = ["item-plain", "item-429", "item-500", "item-hang", "item-broken", "item-truncated",
         "item-schema", "item-prose", "item-refusal"]
# item -> (status, value, requests sent, transport retries, re-asks)
EXPECTED = {
    "item-plain": ("ok", 1, 1, 0, 0),
    "item-429": ("ok", 2, 2, 1, 0),
    "item-500": ("ok", 3, 3, 2, 0),
    "item-hang": ("ok", 4, 2, 1, 0),
    "item-broken": ("ok", 5, 2, 1, 0),
    "item-truncated": ("truncated", None, 1, 0, 0),
    "item-schema": ("ok", 6, 2, 0, 1),
    "item-prose": ("invalid", None, 3, 0, 2),
    "item-refusal": ("refused", None, 1, 0, 0),
}


@pytest.fixture()
def server():
    with ScriptedServer(SCRIPT) as running:
        yield running


def make_engine(server: ScriptedServer, cache_path: Path, transport: str,
                **options) -> Engine:
    engine = Engine("openai/scripted", api_base=server.url, cache_path=cache_path,
                    transport=transport, **{**FAST_RETRIES, **options})
    assert engine.spec.transport == transport
    return engine


def test_every_fault_ends_in_its_status_with_counted_retries_and_a_second_run_is_free(
        transport: str, server: ScriptedServer, tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    items = [{"prompt": name} for name in ITEMS]
    with make_engine(server, cache_path, transport) as engine:
        results = engine.run(items, "llm.try", Label, step="faults")
        manifest = engine.manifest_entry()
    for name, result in zip(ITEMS, results, strict=True):
        status, value, requests, retries, reasks = EXPECTED[name]
        assert result.status == status, (name, result.error)
        assert (result.value.label if result.value else None) == value, name
        assert (result.attempts, result.retries, result.reasks) == (requests, retries, reasks), name
        assert server.count(name) == requests, name
        assert result.raw is not None or status == "error", name
        assert result.cached is False
    by_name = dict(zip(ITEMS, results, strict=True))
    sent_format = server.log[0].params["response_format"]
    assert sent_format["type"] == "json_schema"
    assert sent_format["json_schema"]["schema"] == Label.model_json_schema()
    assert "authorization" not in json.dumps(server.log[0].params).lower()
    assert "max_tokens" in by_name["item-truncated"].error
    assert by_name["item-truncated"].raw == '{"label": '
    assert "can't help" in by_name["item-refusal"].error
    assert "after 2 re-asks" in by_name["item-prose"].error
    assert manifest["calls"] == sum(e[2] for e in EXPECTED.values())
    assert manifest["retries"] == sum(e[3] for e in EXPECTED.values())
    assert manifest["statuses"] == {"ok": 6, "truncated": 1, "invalid": 1, "refused": 1}

    # the cache holds exactly one entry per answered request (failed transports are not kept)
    answered = sum(e[2] - e[3] for e in EXPECTED.values())
    with ResponseCache(cache_path) as cache:
        assert cache.stats()["entries"] == answered
        assert cache.stats()["by_step"] == {"faults": answered}

    sent = len(server.log)
    with make_engine(server, cache_path, transport) as again:
        replay = again.run(items, "llm.try", Label, step="faults")
        assert again.manifest_entry()["calls"] == 0
    assert len(server.log) == sent, "a second run must not send any request"
    assert [r.status for r in replay] == [r.status for r in results]
    assert [r.value for r in replay] == [r.value for r in results]
    assert all(r.cached and r.attempts == 0 for r in replay)


def test_retry_after_is_honoured(transport: str, tmp_path: Path) -> None:
    script = Script(default=ANSWER, rules=(Rule("slow-down", (
        Action.error(429, retry_after=1.0), Action.answer({"label": 7}))),))
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport) as engine:
        [result] = engine.run([{"prompt": "slow-down"}], "llm.try", Label)
        first, second = server.log
    assert result.status == "ok" and result.retries == 1
    # backoff alone would wait at most 0.05 s; the server asked for 1 s
    assert second.received - first.received >= 0.95


def test_persistent_server_error_is_an_error_result_not_a_crash(transport: str,
                                                                tmp_path: Path) -> None:
    script = Script(default=ANSWER, rules=(Rule("down", (Action.error(500),)),))
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport, max_retries=2) as engine:
        down, fine = engine.run([{"prompt": "down"}, {"prompt": "fine"}], "llm.try", Label)
        assert server.count("down") == 3
    assert down.status == "error" and down.attempts == 3 and down.retries == 2
    assert "500" in down.error and down.value is None
    assert fine.status == "ok"
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        assert cache.stats()["entries"] == 1, "errors must not be cached"


def test_client_errors_are_not_retried(transport: str, tmp_path: Path) -> None:
    script = Script(default=ANSWER, rules=(Rule("bad", (Action.error(400),)),))
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport) as engine:
        [result] = engine.run([{"prompt": "bad"}], "llm.try", Label)
        assert server.count("bad") == 1
    assert result.status == "error" and result.retries == 0


def test_concurrency_is_bounded(transport: str, tmp_path: Path) -> None:
    with ScriptedServer(Script(default=Action.answer({"label": 1}), latency=0.1)) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport, concurrency=3) as engine:
        results = engine.run([{"prompt": f"p{i}"} for i in range(12)], "llm.try", Label)
        assert server.app.max_in_flight == 3
    assert all(r.status == "ok" for r in results)


def test_api_key_is_never_stored(transport: str, tmp_path: Path) -> None:
    secret = "sk-irforge-test-SECRET-0123456789"
    script = Script(default=ANSWER, rules=(Rule("fail", (Action.error(401),)),))
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport, api_key=secret) as engine:
        results = engine.run([{"prompt": "ok"}, {"prompt": "fail"}], "llm.try", Label)
        manifest = json.dumps(engine.manifest_entry())
    assert [r.status for r in results] == ["ok", "error"]
    assert secret not in manifest
    assert all(secret not in json.dumps(r.to_dict()) for r in results)
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("c.sqlite*"))
    assert secret.encode() not in stored


def test_progress_bar_reports_done_over_total(transport: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(Script(default=ANSWER)) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport, progress=True) as engine:
        engine.run([{"prompt": f"p{i}"} for i in range(3)], "llm.try", Label, step="shown")
    err = capsys.readouterr().err
    assert "shown (openai/scripted)" in err and "3/3" in err and "$0.0000" in err


def test_bad_items_and_storage_failures_become_error_results(transport: str,
                                                             tmp_path: Path) -> None:
    import sqlite3

    with ScriptedServer(Script(default=ANSWER)) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport) as engine:
        good, missing = engine.run([{"prompt": "fine"}, {"wrong_name": "x"}], "llm.try", Label)
        assert good.status == "ok"
        assert missing.status == "error" and "missing ['prompt']" in missing.error
        assert "try.yaml" in missing.error, "the message names the template file"

        def full_disk(*args, **kwargs):
            raise sqlite3.OperationalError("database or disk is full")

        engine.cache.put = full_disk  # type: ignore[method-assign]
        first, second = engine.run([{"prompt": "a"}, {"prompt": "b"}], "llm.try", Label)
    assert first.status == second.status == "error"
    assert "disk is full" in first.error


def test_authentication_failure_stops_sending_the_remaining_items(transport: str,
                                                                  tmp_path: Path) -> None:
    script = Script(default=Action.error(401))
    items = [{"prompt": f"p{i}"} for i in range(6)]
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport, concurrency=1) as engine:
        results = engine.run(items, "llm.try", Label)
        assert len(server.log) == 1
    assert all(r.status == "error" for r in results)
    assert "401" in results[0].error or "Authentication" in results[0].error
    assert all("not attempted" in r.error and r.attempts == 0 for r in results[1:])


def test_instructions_mode_sends_no_response_format_and_parses_prose(transport: str,
                                                                     tmp_path: Path) -> None:
    script = Script(default=Action.answer('Here you go:\n```json\n{"label": 9}\n```'))
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport,
                        response_format="instructions") as engine:
        [result] = engine.run([{"prompt": "x"}], "llm.try", Label)
        sent = server.log[0]
    assert result.status == "ok" and result.value == Label(label=9)
    assert "response_format" not in sent.params
    assert '"label"' in sent.messages[0]["content"], "the schema is stated in the prompt"


def test_a_server_that_never_answers_is_an_error_naming_the_timeout(transport: str,
                                                                    tmp_path: Path) -> None:
    script = Script(default=ANSWER, rules=(Rule("silent", (Action.hang(30),)),))
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "c.sqlite", transport, max_retries=1,
                        timeout=0.5) as engine:
        [result] = engine.run([{"prompt": "silent"}], "llm.try", Label)
        assert server.count("silent") == 2
    assert result.status == "error" and (result.attempts, result.retries) == (2, 1)
    assert "timeout" in result.error.lower() or "timed out" in result.error.lower()
    if transport == "direct":
        assert "within 0.5 s (the timeout)" in result.error and server.url in result.error
