"""Huge answers and the budget message, against the scripted server on both transports.

A 10 MB answer for ``max_tokens`` 64 fails its item with a clear error and reaches neither the
cache nor the result, read no further than its limit on both transports; a normal answer
beside it is kept. Items the budget skipped say what the
run spent in the end, not what was spent when they were skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.llm import Engine
from irforge.llm.answer_size import body_limit, text_limit
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer


class Label(BaseModel):
    label: int


HUGE = '{"label": 1, "pad": "' + "x" * 10_000_000 + '"}'


@pytest.mark.parametrize("api_key", [None, "sk-test-key-123456"])
def test_a_huge_answer_fails_its_item_and_is_not_stored(transport: str, api_key: str | None,
                                                        tmp_path: Path) -> None:
    script = Script(default=Action.answer({"label": 1}),
                    rules=(Rule("document huge", (Action.answer(HUGE),)),))
    items = [{"prompt": "document huge"}, {"prompt": "document small"}]
    with ScriptedServer(script) as server, Engine(
            "openai/scripted", api_base=server.url, cache_path=tmp_path / "cache.sqlite",
            api_key=api_key, max_tokens=64, progress=False, transport=transport,
            max_retries=2) as engine:
        huge, small = engine.run(items, "llm.try", Label, step="size")
        assert server.count("document huge") == 1, "not retried: the server would resend it"
    assert huge.status == "error" and huge.value is None
    assert "far more than max_tokens 64 allows" in str(huge.error)
    assert "body (bytes)" in str(huge.error), "the body was cut off while read, not after"
    assert small.status == "ok" and small.value.label == 1
    assert (tmp_path / "cache.sqlite").stat().st_size < 1_000_000


def test_limits_grow_with_the_token_budget_and_logprobs() -> None:
    assert text_limit({"max_tokens": 1024}) < len(HUGE)
    assert body_limit({"max_tokens": 1024}) < len(HUGE)
    assert body_limit({"max_tokens": 2048}) > body_limit({"max_tokens": 1024})
    assert body_limit({"max_tokens": 64, "logprobs": 5}) > body_limit({"max_tokens": 64})


def test_budget_skips_report_the_money_the_run_spent(transport: str, tmp_path: Path) -> None:
    items = [{"prompt": f"document number {i}"} for i in range(12)]
    with ScriptedServer(Script(default=Action.answer({"label": 1}), latency=0.3)) as server, \
            Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.sqlite",
                   concurrency=8, budget_usd=8.0, price_per_mtok=(10_000.0, 10_000.0),
                   progress=False, transport=transport) as engine:
        results = engine.run(items, "llm.try", Label, step="budgeted")
    spent = engine.total.cost_usd
    skipped = [r for r in results if r.status == "skipped"]
    assert skipped and spent > 0
    for result in skipped:
        assert f"(${spent:.4f} spent)" in str(result.error), result.error
