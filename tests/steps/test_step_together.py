"""A step whose output model differs per item (a schema enumerating each item's choices)
sends its items together through the engine's one gate, not one engine call at a time, and
judges them in input order whatever order the answers come in."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, create_model

from irforge.llm import Engine
from irforge.steps import Step, run_step
from irforge.testing.scripted import Action, Script, ScriptedServer

ITEMS = [f"item {i}" for i in range(8)]


def _model(item: str) -> type[BaseModel]:
    """One output model per item, as a per-item schema makes."""
    return create_model(f"Label_{item.split()[-1]}", label=(int, ...))


def test_items_with_their_own_models_go_out_together_and_come_back_in_order(
        tmp_path: Path) -> None:
    step = Step(name="t.label", template="llm.try", output_model=_model,
                variables=lambda item: {"prompt": item}, item_id=lambda item: item,
                validators=(lambda item, value: [] if value.label == 1 else ["not 1"],),
                accept=lambda item, value: f"{item}: {value.label}")
    script = Script(default=Action.answer({"label": 1}), latency=0.2)
    with ScriptedServer(script) as server, \
            Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.sqlite",
                   concurrency=4, max_tokens=16, progress=False) as engine:
        outcome = run_step(engine, step, ITEMS)
        assert server.app.max_in_flight == 4, "8 one-item calls went out 4 at a time"
        assert engine.total.requests == 8
    assert list(outcome.accepted) == ITEMS
    assert list(outcome.accepted.values()) == [f"{item}: 1" for item in ITEMS]
    assert outcome.yield_.accepted == 8 and not outcome.failures
