from __future__ import annotations

from pathlib import Path

from irforge.llm.cache import ResponseCache
from irforge.llm.completion import Completion, request_key


def test_key_depends_on_model_messages_params_and_schema() -> None:
    messages = [{"role": "user", "content": "hi"}]
    base = request_key("m", messages, {"temperature": 0}, {"type": "object"})
    assert base == request_key("m", [dict(messages[0])], {"temperature": 0}, {"type": "object"})
    assert base != request_key("m2", messages, {"temperature": 0}, {"type": "object"})
    assert base != request_key("m", [{"role": "user", "content": "hi!"}], {"temperature": 0},
                               {"type": "object"})
    assert base != request_key("m", messages, {"temperature": 1}, {"type": "object"})
    assert base != request_key("m", messages, {"temperature": 0}, {"type": "array"})


def test_entries_survive_reopening_and_stats_count_hits(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with ResponseCache(path) as cache:
        assert cache.get("k1") is None
        cache.put("k1", "model-a", Completion("{}", "stop", None, 10, 2, 0.5), "p.x", "step1")
        cache.put("k2", "model-b", Completion("{}", "length"), "p.y", "step2")
    with ResponseCache(path) as cache:
        hit = cache.get("k1")
        assert hit == Completion("{}", "stop", None, 10, 2, 0.5)
        cache.get("k1")
        stats = cache.stats()
    assert stats["entries"] == 2 and stats["recorded_hits"] == 2
    assert stats["by_model"]["model-a"] == {"entries": 1, "hits": 2}
    assert stats["by_step"] == {"step1": 1, "step2": 1}
    assert stats["stored_cost_usd"] == 0.5


def test_clear_by_model_or_everything(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        for index, model in enumerate(["a", "a", "b"]):
            cache.put(f"k{index}", model, Completion("x"))
        assert cache.clear(model="a") == 2
        assert cache.stored_keys() == {"k2"}
        assert cache.clear() == 1
        assert cache.stats()["entries"] == 0


def test_answers_put_inside_an_event_loop_are_committed_by_the_writer(tmp_path: Path) -> None:
    import asyncio
    import sqlite3
    import time

    path = tmp_path / "c.sqlite"

    def committed() -> set[str]:  # what a kill -9 would leave: another connection's view
        with sqlite3.connect(path) as other:
            return {row[0] for row in other.execute("SELECT key FROM responses")}

    expected = {f"k{i}" for i in range(5)}
    with ResponseCache(path) as cache:
        async def answers_arrive() -> set[str]:
            for index in range(5):
                cache.put(f"k{index}", "m", Completion(f"answer {index}"))
            assert cache.get("k3") == Completion("answer 3"), "readable before the commit"
            assert cache.contains("k4")
            deadline = time.monotonic() + 5
            while committed() != expected and time.monotonic() < deadline:
                await asyncio.sleep(0.01)  # no flush called: the writer thread commits
            return committed()

        assert asyncio.run(answers_arrive()) == expected
        cache.put("sync", "m", Completion("x"))  # outside a loop: committed at once
        assert "sync" in committed()
    assert committed() == expected | {"sync"}
