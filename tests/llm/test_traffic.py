"""One engine, one gate (irforge/llm/traffic.py): every call an engine serves at once, from one
loop or several threads, shares its ``concurrency`` and its requests per minute."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from pydantic import BaseModel

from irforge.llm import Engine
from irforge.testing.scripted import Action, Script, ScriptedServer


class Label(BaseModel):
    label: int


def _engine(url: str, cache: Path, **options: object) -> Engine:
    return Engine("openai/scripted", api_base=url, cache_path=cache, max_tokens=16,
                  progress=False, rate_headers=False, max_retries=30, backoff_initial=0.05,
                  backoff_max=0.2, **options)


def _items(name: str, count: int) -> list[dict[str, str]]:
    return [{"prompt": f"{name} item {i}"} for i in range(count)]


def test_two_calls_at_once_share_the_engines_concurrency(tmp_path: Path) -> None:
    script = Script(default=Action.answer({"label": 1}), latency=0.1)
    with ScriptedServer(script) as server, \
            _engine(server.url, tmp_path / "c.sqlite", concurrency=3) as engine:

        async def both() -> list[list]:
            return await asyncio.gather(engine.arun(_items("a", 6), "llm.try", Label),
                                        engine.arun(_items("b", 6), "llm.try", Label))

        first, second = asyncio.run(both())
        assert [r.status for r in first + second] == ["ok"] * 12
        assert server.app.max_in_flight == 3, "the two calls together keep 3 in flight"
        assert engine.total.requests == 12


def _two_threads(run: object) -> None:
    threads = [threading.Thread(target=run, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_one_engine_in_two_threads_keeps_its_requests_per_minute(tmp_path: Path) -> None:
    """The server allows 720 requests a minute (12 a second, a bucket of 12); the engine is
    set to 600 a minute. Two threads calling one engine at once stay under the server's limit
    (no 429); two engines of 600 each (the control) go over it."""
    refused = {}
    for one_engine in (True, False):
        script = Script(default=Action.answer({"label": 1}), rate_requests=12,
                        rate_window=1.0)
        with ScriptedServer(script) as server:
            engines = [_engine(server.url, tmp_path / f"{one_engine}{i}.sqlite", rpm=600,
                               concurrency=8) for i in range(1 if one_engine else 2)]
            statuses: list[str] = []

            def call(index: int, engines: list[Engine] = engines,
                     statuses: list[str] = statuses) -> None:
                engine = engines[index % len(engines)]
                results = engine.run(_items(f"thread {index}", 12), "llm.try", Label)
                statuses.extend(result.status for result in results)

            _two_threads(call)
            for engine in engines:
                engine.close()
            refused[one_engine] = server.app.limits.refused
        assert statuses == ["ok"] * 24
    assert refused[True] == 0, f"{refused[True]} requests refused: the calls kept two budgets"
    assert refused[False] > 0, "the control (two engines) shows the server enforces its limit"
