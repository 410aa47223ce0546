"""Budget stop, dry-run estimate and cost accounting against the scripted server."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.llm import Engine
from irforge.llm.accounting import cost_usd, litellm_price
from irforge.testing.scripted import Action, Script, ScriptedServer


class Label(BaseModel):
    label: int


# $10,000 per million tokens = 1 cent a token: a request here costs about a dollar
PRICE = (10_000.0, 10_000.0)
ITEMS = [{"prompt": f"document number {i}"} for i in range(10)]


def engine_for(server: ScriptedServer, cache: Path, budget: float | None,
               transport: str) -> Engine:
    return Engine("openai/scripted", api_base=server.url, cache_path=cache, concurrency=1,
                  budget_usd=budget, price_per_mtok=PRICE, progress=False, transport=transport)


def test_budget_stops_gracefully_keeps_completed_work_and_resumes(transport: str,
                                                                   tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    with ScriptedServer(Script(default=Action.answer({"label": 1}))) as server:
        with engine_for(server, cache, budget=4.0, transport=transport) as engine:
            estimate = engine.estimate(ITEMS, "llm.try", Label)
            assert len(server.log) == 0, "an estimate sends nothing"
            assert estimate.requests == 10 and estimate.cached_items == 0 and estimate.priced
            assert estimate.input_cost_usd > 0

            results = engine.run(ITEMS, "llm.try", Label, step="budgeted")
            manifest = engine.manifest_entry()
        done = [r for r in results if r.status == "ok"]
        skipped = [r for r in results if r.status == "skipped"]
        assert 1 <= len(done) < len(ITEMS)
        assert len(done) + len(skipped) == len(ITEMS)
        assert results[: len(done)] == done, "items run in order; the tail is skipped"
        assert len(server.log) == len(done)
        assert round(sum(r.cost_usd for r in done), 6) == manifest["cost_usd"] <= 4.0
        assert all(r.cost_usd > 0 and r.value.label == 1 for r in done)
        assert all("budget" in r.error and r.value is None for r in skipped)
        assert manifest["budget_stopped"] is True
        assert "BUDGET STOP" in engine.summary() and f"{len(skipped)} skipped" in engine.summary()
        assert manifest["steps"]["budgeted"]["statuses"] == {"ok": len(done),
                                                             "skipped": len(skipped)}

        with engine_for(server, cache, budget=None, transport=transport) as resumed:
            assert resumed.estimate(ITEMS, "llm.try", Label).cached_items == len(done)
            again = resumed.run(ITEMS, "llm.try", Label, step="budgeted")
        assert len(server.log) == len(ITEMS), "completed items are not asked again"
        assert all(r.status == "ok" for r in again)
        assert [r.cached for r in again] == [True] * len(done) + [False] * len(skipped)


def test_prices_come_from_litellms_local_map() -> None:
    price = litellm_price("gpt-4o-mini")
    assert price is not None and price[0] > 0 and price[1] > price[0]
    assert litellm_price("openai/no-such-model-anywhere") is None
    assert cost_usd(None, 1000, 1000) == 0.0
    assert cost_usd((1e-6, 2e-6), 1000, 500) == pytest.approx(0.002)
