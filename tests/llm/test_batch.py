"""The engine's batch path against the scripted server's /v1/files and /v1/batches (real HTTP)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.llm import Engine
from irforge.llm.batch import BatchPending
from irforge.llm.cache import ResponseCache
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer


class Label(BaseModel):
    label: int


SCRIPT = Script(default=Action.answer({"label": 1}), rules=(
    Rule("item-two", (Action.answer({"label": 2}),)),
    Rule("item-schema", (Action.answer({"label": "high"}), Action.answer({"label": 6}))),
    Rule("item-broken", (Action.broken_body(),)),
    Rule("item-500", (Action.error(500),)),
    Rule("item-refusal", (Action.refusal("no"),)),
), batch_polls=2)
ITEMS = [{"prompt": name} for name in
         ("item-plain", "item-two", "item-schema", "item-broken", "item-500", "item-refusal")]
PRICE = (1.0, 2.0)  # dollars per million tokens, so the cost is exact and checkable


@pytest.fixture()
def server():
    with ScriptedServer(SCRIPT) as running:
        yield running


def make_engine(server: ScriptedServer, cache_path: Path, **options) -> Engine:
    return Engine("openai/scripted", api_base=server.url, cache_path=cache_path,
                  **{"progress": False, "max_retries": 0, "price_per_mtok": PRICE,
                     "timeout": 5.0, **options})


def test_batch_run_validates_in_order_and_a_second_run_sends_nothing(
        server: ScriptedServer, tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    with make_engine(server, cache_path) as engine:
        results = engine.run_batch(ITEMS, "llm.try", Label, step="batch", poll_seconds=0.01)
        manifest = engine.manifest_entry()
    statuses = [result.status for result in results]
    assert statuses == ["ok", "ok", "ok", "error", "error", "refused"]
    assert [r.value.label if r.value else None for r in results] == [1, 2, 6, None, None, None]
    assert "malformed" in (results[3].error or "")
    assert "500" in (results[4].error or "")
    calls = server.app.batches.calls
    assert calls["files.create"] == 1 and calls["batches.create"] == 1
    assert calls["batches.retrieve"] == 2  # completes on the second poll
    assert server.app.batch_lines == len(ITEMS)
    # the invalid answer of item-schema was re-asked online, once
    assert [entry.first_user for entry in server.log] == ["item-schema"]
    assert results[2].reasks == 1
    assert manifest["batches"] == ["batch-1"] and manifest["batch_discount"] == 0.5

    # errors are not cached (like the online path): a re-run sends only those two again
    with make_engine(server, cache_path) as again:
        second = again.run_batch(ITEMS, "llm.try", Label, step="batch", poll_seconds=0.01)
    assert calls["batches.create"] == 2 and server.app.batch_lines == len(ITEMS) + 2
    assert [r.status for r in second] == statuses and len(server.log) == 1
    assert [r.cached for r in second] == [True, True, True, False, False, True]


def test_a_second_run_of_answered_items_makes_no_request(server: ScriptedServer,
                                                         tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    items = [ITEMS[0], ITEMS[1], ITEMS[2], {"prompt": "item-plain again"}]
    with make_engine(server, cache_path) as engine:
        first = engine.run_batch(items, "llm.try", Label, poll_seconds=0.01)
    before = (dict(server.app.batches.calls), server.app.batch_lines, len(server.log))
    with make_engine(server, cache_path) as again:
        second = again.run_batch(items, "llm.try", Label, poll_seconds=0.01)
        assert again.total.requests == 0 and again.batch_ids == []
    assert (dict(server.app.batches.calls), server.app.batch_lines, len(server.log)) == before
    assert [r.value for r in second] == [r.value for r in first]
    assert all(r.status == "ok" and r.cached for r in second)


def test_batch_cost_carries_the_discount(server: ScriptedServer, tmp_path: Path) -> None:
    items = ITEMS[:2]
    with make_engine(server, tmp_path / "a.sqlite", batch_discount=0.25) as engine:
        results = engine.run_batch(items, "llm.try", Label, poll_seconds=0.01)
    with make_engine(server, tmp_path / "b.sqlite") as online:
        online_results = online.run(items, "llm.try", Label)
    online_cost = sum(r.cost_usd for r in online_results)
    assert online_cost > 0
    assert sum(r.cost_usd for r in results) == pytest.approx(0.25 * online_cost)
    assert engine.total.cost_usd == pytest.approx(0.25 * online_cost)
    stored = ResponseCache(tmp_path / "a.sqlite")
    assert stored.stats()["stored_cost_usd"] == pytest.approx(0.25 * online_cost, abs=1e-6)
    stored.close()


def test_large_runs_are_split_into_several_batches_within_the_limits(
        server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("irforge.llm.batch.MAX_BATCH_REQUESTS", 2)
    items = [{"prompt": f"item-plain {n}"} for n in range(5)]
    with make_engine(server, tmp_path / "c.sqlite") as engine:
        results = engine.run_batch(items, "llm.try", Label, poll_seconds=0.01)
        assert engine.batch_ids == ["batch-1", "batch-2", "batch-3"]
    assert [r.status for r in results] == ["ok"] * 5
    assert server.app.batches.calls["files.create"] == 3 and server.app.batch_lines == 5


def test_the_dry_run_estimate_carries_the_batch_discount(server: ScriptedServer,
                                                         tmp_path: Path) -> None:
    with make_engine(server, tmp_path / "c.sqlite") as online, \
            make_engine(server, tmp_path / "c.sqlite", batch=True) as batched:
        full = online.estimate(ITEMS, "llm.try", Label)
        half = batched.estimate(ITEMS, "llm.try", Label)
    assert full.max_cost_usd > 0
    assert half.max_cost_usd == pytest.approx(0.5 * full.max_cost_usd)


def test_a_killed_run_resumes_the_submitted_batch(server: ScriptedServer,
                                                  tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    items = ITEMS[:3]
    with make_engine(server, cache_path) as first, pytest.raises(BatchPending, match="batch-1"):
        first.run_batch(items, "llm.try", Label, poll_seconds=0.01, max_wait_seconds=0)
    assert server.app.batches.calls["batches.create"] == 1
    with make_engine(server, cache_path) as fresh:
        results = fresh.run_batch(items, "llm.try", Label, poll_seconds=0.01)
        assert fresh.batch_ids == ["batch-1"]
    assert server.app.batches.calls["batches.create"] == 1
    assert server.app.batches.calls["files.create"] == 1
    assert [r.value.label for r in results] == [1, 2, 6]
    with ResponseCache(cache_path) as cache:
        assert cache.open_batches("openai/scripted") == []


def test_a_batch_the_provider_no_longer_knows_is_resubmitted(server: ScriptedServer,
                                                              tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    with make_engine(server, cache_path) as engine:
        key = engine.request_key_for(ITEMS[0], "llm.try", Label)
        engine.cache.record_batch("batch-gone", "openai/scripted", "llm.try", [key])
        results = engine.run_batch(ITEMS[:1], "llm.try", Label, poll_seconds=0.01)
        assert engine.batch_ids == ["batch-1"] and "batch-gone" in engine.notes[0]
    assert results[0].status == "ok" and server.app.batches.calls["batches.create"] == 1
    with ResponseCache(cache_path) as cache:
        assert cache.open_batches("openai/scripted") == []


def test_transient_polling_failures_are_waited_out(tmp_path: Path) -> None:
    script = Script(default=Action.answer({"label": 1}), batch_retrieve_errors=2)
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "c.sqlite", max_retries=2) as engine:
        results = engine.run_batch(ITEMS[:1], "llm.try", Label, poll_seconds=0.01)
        assert server.app.batches.calls["batches.retrieve"] == 3
    assert results[0].status == "ok"
    with ScriptedServer(script) as server, \
            make_engine(server, tmp_path / "d.sqlite", max_retries=1) as engine, \
            pytest.raises(Exception, match="503"):
        engine.run_batch(ITEMS[:1], "llm.try", Label, poll_seconds=0.01)


def test_the_embedded_model_falls_back_to_the_online_path_with_a_note(
        tmp_path: Path, embedded_model_path: Path) -> None:
    class Word(BaseModel):
        word: str

    with Engine("embedded", cache_path=tmp_path / "c.sqlite", progress=False,
                max_tokens=24) as engine:
        results = engine.run_batch([{"prompt": "Say one word."}], "llm.try", Word)
        manifest = engine.manifest_entry()
    assert len(results) == 1 and results[0].status in {"ok", "invalid", "truncated"}
    assert engine.total.requests >= 1 and "batches" not in manifest
    assert "no batch API" in manifest["notes"][0]
