"""Best-of-n per item: a failed item is asked again while the others are out, and whatever
order the answers come back in, a step keeps, rejects and sends exactly the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from irforge.llm import Engine
from irforge.steps import Step, run_step
from irforge.steps.gates import QueryGates
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

TOPICS = ("tide pools on rocky coasts", "sourdough starter feeding", "glacier melt in spring",
          "beekeeping in cold winters", "lighthouse lenses and their range",
          "composting kitchen scraps", "volcanic soil for vineyards", "night trains in Europe")
ITEMS = [f"<item {i:02d}>" for i in range(len(TOPICS))]


class Written(BaseModel):
    query: str


def _step() -> Step[str, str]:
    return Step(name="t.query", template="llm.try", output_model=Written,
                variables=lambda item: {"prompt": f"write a query for {item}"},
                item_id=lambda item: item,
                validators=(lambda item, value: ["too short"] if len(value.query) < 12
                            else [],),
                accept=lambda item, value: value.query,
                queries_of=lambda item, value: [value],
                source_of=lambda item: ("Notes", "Short notes on many topics."))


def _script(jitter: float, seed: int) -> Script:
    """Item 0 answers too short first; item 1 writes item 0's later query (admitted first, so
    item 0's second sample is a duplicate); items 2 and 5 fail once, then pass."""
    def ask(topic: str) -> Action:
        return Action.answer({"query": f"how does {topic} work in practice"})

    rules = [Rule(ITEMS[0], (Action.answer({"query": "short"}), ask(TOPICS[0]))),
             Rule(ITEMS[1], (ask(TOPICS[0]),)),
             Rule(ITEMS[2], (Action.answer({"query": "tiny"}), ask(TOPICS[2]))),
             Rule(ITEMS[5], (Action.answer({"query": "no"}), ask(TOPICS[5])))]
    rules += [Rule(item, (ask(topic),)) for item, topic in zip(ITEMS, TOPICS, strict=True)
              if item not in (ITEMS[0], ITEMS[1], ITEMS[2], ITEMS[5])]
    return Script(rules=tuple(rules), latency=0.01, jitter=jitter, jitter_seed=seed)


def _run(tmp_path: Path, name: str, jitter: float, seed: int
         ) -> tuple[dict[str, Any], list[str], list[str]]:
    with ScriptedServer(_script(jitter, seed)) as server, \
            Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / f"{name}.db",
                   concurrency=4, max_tokens=64, progress=False) as engine:
        outcome = run_step(engine, _step(), ITEMS, QueryGates(), samples=2)
        sent = sorted(json.dumps({"messages": e.messages, "params": e.params}, sort_keys=True)
                      for e in server.log)
    failures = [json.dumps([f.step, f.item_id, f.reason, f.metadata], sort_keys=True)
                for f in outcome.failures]
    return {"accepted": outcome.accepted, "yield": outcome.yield_.to_dict()}, failures, sent


def test_a_failed_item_is_asked_again_and_judged_in_input_order(tmp_path: Path) -> None:
    kept, failures, sent = _run(tmp_path, "plain", 0.0, 0)
    assert list(kept["accepted"]) == [item for i, item in enumerate(ITEMS) if i != 0]
    assert kept["accepted"][ITEMS[1]] == f"how does {TOPICS[0]} work in practice"
    assert len(failures) == 1 and ITEMS[0] in failures[0] and "duplicate" in failures[0]
    assert kept["yield"]["samples"] == len(ITEMS) + 3 and len(sent) == len(ITEMS) + 3


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_answers_in_a_shuffled_order_keep_and_send_the_same(tmp_path: Path, seed: int) -> None:
    assert _run(tmp_path, f"jitter{seed}", 0.3, seed) == _run(tmp_path, "plain", 0.0, 0)
