"""Dependent steps stream item by item: an item a step accepts goes to the next step at once,
and whatever order the answers come back in, the chain keeps, rejects and sends the same as
the one-step-after-another round loop a batch engine runs."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from irforge.llm import Engine
from irforge.steps import Step
from irforge.steps.chain import Link, run_chain
from irforge.steps.gates import QueryGates
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.steps.hooks import RecordingHook

TOPICS = ("tide pools on rocky coasts", "sourdough starter feeding", "glacier melt in spring",
          "beekeeping in cold winters", "lighthouse lenses and their range",
          "composting kitchen scraps", "volcanic soil for vineyards", "night trains in Europe")
ITEMS = [f"<item {i:02d}>" for i in range(len(TOPICS))]


class Need(BaseModel):
    need: str


class Written(BaseModel):
    query: str


def _need_step() -> Step[str, str]:
    return Step(name="t.need", template="llm.try", output_model=Need,
                variables=lambda item: {"prompt": f"state a need of {item}"},
                item_id=lambda item: item,
                validators=(lambda item, value: ["too short"] if len(value.need) < 8 else [],),
                accept=lambda item, value: value.need)


def _query_step() -> Step[tuple[str, str], str]:
    return Step(name="t.query", template="llm.try", output_model=Written,
                variables=lambda pair: {"prompt": f"write a query of {pair[0]} for {pair[1]}"},
                item_id=lambda pair: pair[0],
                validators=(lambda pair, value: ["too short"] if len(value.query) < 12
                            else [],),
                accept=lambda pair, value: value.query,
                queries_of=lambda pair, value: [value],
                source_of=lambda pair: ("Notes", "Short notes on many topics."))


def _links() -> list[Link]:
    return [Link.of(_need_step(), lambda item, need: [(item, need)], bound=ITEMS),
            Link.of(_query_step(), bound=[(item, "") for item in ITEMS])]


def _script(jitter: float, seed: int) -> Script:
    """Item 0's need is too short first, so item 0 reaches the query step last; item 1 writes
    item 0's first query (admitted first: item 0's first query is a duplicate, its second
    passes); item 4's first query is too short; item 6's need fails both samples."""
    def need(topic: str) -> Action:
        return Action.answer({"need": f"to learn about {topic}"})

    def query(topic: str, how: str = "how does") -> Action:
        return Action.answer({"query": f"{how} {topic} work in practice"})

    rules = [Rule(f"need of {ITEMS[0]}", (Action.answer({"need": "x"}), need(TOPICS[0]))),
             Rule(f"need of {ITEMS[6]}", (Action.answer({"need": "no"}),
                                          Action.answer({"need": "nope"}))),
             Rule(f"query of {ITEMS[0]}", (query(TOPICS[0]), query(TOPICS[0], "why does"))),
             Rule(f"query of {ITEMS[1]}", (query(TOPICS[0]),)),
             Rule(f"query of {ITEMS[4]}", (Action.answer({"query": "tiny"}), query(TOPICS[4])))]
    rules += [Rule(f"need of {item}", (need(topic),))
              for item, topic in zip(ITEMS, TOPICS, strict=True) if item not in ITEMS[::6]]
    rules += [Rule(f"query of {item}", (query(topic),))
              for item, topic in zip(ITEMS, TOPICS, strict=True) if item not in ITEMS[:2]
              and item != ITEMS[4]]
    return Script(rules=tuple(rules), latency=0.01, jitter=jitter, jitter_seed=seed)


class _RoundsOnly:
    """An engine that does not report answers as they land (a batch-API engine's way)."""

    streams_results = False

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return self.engine.run(*args, **kwargs)


def _slow_validator(seed: int) -> RecordingHook:
    """A hook that takes a seeded random while per query."""
    pace = random.Random(seed)
    return RecordingHook(lambda: time.sleep(pace.uniform(0.0, 0.03)))


def _run(tmp_path: Path, name: str, jitter: float, seed: int, rounds_only: bool = False,
         slow: int | None = None) -> dict[str, Any]:
    gates = QueryGates(validate=_slow_validator(slow) if slow is not None else None)
    with ScriptedServer(_script(jitter, seed)) as server, \
            Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / f"{name}.db",
                   concurrency=4, max_tokens=64, progress=False) as engine:
        outcomes = run_chain(_RoundsOnly(engine) if rounds_only else engine, _links(), ITEMS,
                             gates, samples=2)
        sent = sorted(json.dumps({"messages": e.messages, "params": e.params}, sort_keys=True)
                      for e in server.log)
    return {"accepted": [list(o.accepted.items()) for o in outcomes],
            "yields": [o.yield_.to_dict() for o in outcomes],
            "failures": [[f.step, f.item_id, f.reason, f.metadata] for o in outcomes
                         for f in o.failures],
            "judgments": [[j.query_id, j.task, j.raw_output, j.metadata] for o in outcomes
                          for j in o.judgments],
            "sent": sent}


def test_an_accepted_item_goes_on_in_judging_order(tmp_path: Path) -> None:
    got = _run(tmp_path, "plain", 0.0, 0)
    needs, queries = got["accepted"]
    assert [item for item, _ in needs] == [item for item in ITEMS if item != ITEMS[6]]
    assert [item for item, _ in queries] == [ITEMS[i] for i in (1, 2, 3, 4, 5, 7, 0)]
    assert dict(queries)[ITEMS[0]] == f"why does {TOPICS[0]} work in practice"
    assert got["yields"][0] == {"step": "t.need", "attempted": 8, "accepted": 7, "samples": 10,
                                "rejected": {"rejected: too short": 1}}
    assert got["yields"][1]["accepted"] == 7 and got["yields"][1]["samples"] == 9
    assert [f[1] for f in got["failures"]] == [ITEMS[6]]
    assert len(got["sent"]) == 10 + 9


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_answers_in_a_shuffled_order_keep_and_send_the_same(tmp_path: Path, seed: int) -> None:
    assert _run(tmp_path, f"jitter{seed}", 0.3, seed) == _run(tmp_path, "plain", 0.0, 0)


@pytest.mark.parametrize("seed", [4, 5])
def test_validators_that_take_a_while_outside_the_gates_lock_keep_and_send_the_same(
        tmp_path: Path, seed: int) -> None:
    # the gates screen each query outside their lock (irforge/steps/gates.py); what depends
    # on the queries admitted before (duplicates) is still decided in the fixed order
    assert _run(tmp_path, f"slow{seed}", 0.3, seed, slow=seed) == _run(tmp_path, "plain", 0.0, 0)


def test_a_batch_engine_runs_round_by_round_to_the_same_result(tmp_path: Path) -> None:
    assert _run(tmp_path, "rounds", 0.0, 0, rounds_only=True) == _run(tmp_path, "plain", 0.0, 0)


def test_a_query_step_must_be_a_gated_link(tmp_path: Path) -> None:
    link = Link("t.query", lambda pair: _query_step())
    with pytest.raises(ValueError, match="must be gated"):
        run_chain(None, [link], [(ITEMS[0], "a need")])
