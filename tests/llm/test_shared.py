"""Engines of one run share one pool of requests in flight, one rate budget and one header
estimate (irforge/llm/shared.py): three engines in three threads send what one would."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.llm import Engine
from irforge.llm.shared import RunShare
from irforge.llm.traffic import SlotPool
from irforge.testing.scripted import Action, Script, ScriptedServer


class Label(BaseModel):
    label: int


def _in_threads(count: int, target) -> None:
    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_a_slot_pool_holds_its_size_across_threads_and_loops() -> None:
    pool = SlotPool(3)
    inside = {"now": 0, "most": 0}
    lock = threading.Lock()

    async def hold() -> None:
        await pool.acquire()
        with lock:
            inside["now"] += 1
            inside["most"] = max(inside["most"], inside["now"])
        await asyncio.sleep(0.005)
        with lock:
            inside["now"] -= 1
        pool.release()

    async def many() -> None:
        await asyncio.gather(*(hold() for _ in range(10)))

    _in_threads(4, lambda _: asyncio.run(many()))
    assert inside["most"] == 3 and pool.peak == 3
    assert pool.held == 0


def test_a_cancelled_wait_gives_its_slot_back() -> None:
    pool = SlotPool(1)

    async def scenario() -> None:
        await pool.acquire()
        waiter = asyncio.ensure_future(pool.acquire())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        pool.release()
        await asyncio.wait_for(pool.acquire(), 1)  # the slot is free again
        pool.release()

    asyncio.run(scenario())
    assert pool.held == 0


def _three_engines(url: str, tmp_path: Path, share: RunShare | None) -> list[int]:
    """Three engines, one per thread (as three parallel recipe stages), 20 items each."""
    requests = [0, 0, 0]

    def stage(index: int) -> None:
        with Engine("openai/scripted", api_base=url, cache_path=tmp_path / "cache.sqlite",
                    concurrency=8, max_retries=30, backoff_initial=0.05, backoff_max=0.2,
                    max_tokens=16, progress=False, shared=share) as engine:
            results = engine.run([{"prompt": f"stage {index} item {i}"} for i in range(20)],
                                 "llm.try", Label, step=f"stage-{index}")
            assert all(result.status == "ok" for result in results)
            requests[index] = engine.total.requests

    _in_threads(3, stage)
    return requests


def test_three_engines_of_one_run_keep_the_providers_rate_limit(tmp_path: Path) -> None:
    """The server allows 12 requests a second; three engines of 8 in flight each: shared, no
    request is refused and each engine counts its own; apart, the same load collects 429s."""
    refused = {}
    for shared in (True, False):
        script = Script(default=Action.answer({"label": 1}), rate_requests=12, rate_window=1.0)
        folder = tmp_path / str(shared)
        share = RunShare(concurrency=8) if shared else None
        with ScriptedServer(script) as server:
            start = time.monotonic()
            requests = _three_engines(server.url, folder, share)
            seconds = time.monotonic() - start
            refused[shared] = server.app.limits.refused
            answered = sum(1 for r in server.log if r.action != "rate_limited")
        if share is not None:
            share.close()
            assert requests == [20, 20, 20], "each stage keeps its own count"
            assert answered == 60
            assert seconds >= (60 - 12) / 12 * 0.9, "the allowance was respected"
            assert share.slots(8).peak <= 8
    assert refused[True] == 0, f"{refused[True]} requests refused with one shared budget"
    assert refused[False] > 0, "the control (an engine per stage) shows the limit is enforced"


def test_engines_of_one_run_share_one_cache_connection(tmp_path: Path) -> None:
    with RunShare() as share, ScriptedServer(Script(default=Action.answer({"label": 2}))) as srv:
        first = Engine("openai/scripted", api_base=srv.url, cache_path=tmp_path / "c.sqlite",
                       progress=False, shared=share)
        second = Engine("openai/scripted", api_base=srv.url, cache_path=tmp_path / "c.sqlite",
                        progress=False, shared=share)
        assert first.cache is second.cache
        first.run([{"prompt": "same"}], "llm.try", Label)
        first.close()  # the stage ends: the run's connection stays open for the others
        assert second.run([{"prompt": "same"}], "llm.try", Label)[0].value.label == 2
        assert second.total.cache_hits == 1 and second.total.requests == 0
