"""Dependent steps of a method stream item by item: an item a step accepts goes on at once.

A chain is a list of :class:`Link`: each names the step of its items and what an accepted
item hands to the next link (a need becomes the query step's item, say). With an engine that
reports each answer as it lands (irforge/steps/stream.py), link k+1's first requests go out
while link k still has answers out, instead of after its slowest item.

Determinism: each link judges its answers in the fixed order (sample, index), as
:func:`~irforge.steps.step.run_step` does, and hands an accepted item on the moment it is
judged. When item i is accepted on its first sample, every earlier item's first answer has been
judged (that is the order), and later samples are judged after all first answers, so the next
link's items, their order and their indexes are the same whatever the answers' timing: first
those accepted on sample 0 in input order, then those accepted on sample 1, and so on. The
query gates are order-dependent: a link whose steps admit queries (``gated``) judges nothing
before every earlier gated link has judged its last answer, so the gates see the same
sequence of queries whatever the timing. Answers are judged on worker threads (one at a time
per link, in that order), so the event loop goes on sending while a validator works; links
judge at the same time only when at most one of them is gated. A batch-API engine (no
per-answer reports) runs the links one after another, round by round, handing items on in
the same order, so both paths keep, reject and send the same.

A request's token limit is part of its cache key: each link's limit per (template, output
model) is the largest over ``bound`` (the items it may receive, known before the chain runs),
else the item's own, never one that depends on which items went out together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from irforge.steps.step import Judging, Step, StepOutcome, step_limits

if TYPE_CHECKING:
    from irforge.steps.gates import QueryGates


def _nothing(item: Any, value: Any) -> Sequence[Any]:
    return ()


@dataclass(frozen=True)
class Link:
    """One step of a chain: its name, the step of each item (of that name; the template may
    differ per item), what an accepted item hands to the next link, whether its steps admit queries
    through the gates, and the items it may receive (their largest token limits bound its
    requests)."""

    name: str
    step_of: Callable[[Any], Step]
    hand_on: Callable[[Any, Any], Sequence[Any]] = _nothing
    gated: bool = False
    bound: Sequence[Any] = ()

    @classmethod
    def of(cls, step: Step, hand_on: Callable[[Any, Any], Sequence[Any]] = _nothing,
           bound: Sequence[Any] = ()) -> Link:
        """A link whose items all take ``step``."""
        return cls(step.name, lambda item: step, hand_on, step.queries_of is not None, bound)

    def limits(self) -> dict[tuple[str, type], int]:
        bound = list(self.bound)
        return step_limits([self.step_of(item) for item in bound], bound)


@dataclass
class _State:
    """One link while the chain runs: its items (in hand-on order), their steps, judging."""

    link: Link
    judging: Judging
    steps: list[Step]
    items: list[Any]

    def add(self, item: Any) -> int:
        step = self.link.step_of(item)
        if step.name != self.link.name:
            raise ValueError(f"link {self.link.name} got an item of step {step.name}")
        if step.queries_of is not None and not self.link.gated:
            raise ValueError(f"step {step.name} admits queries: its link must be gated")
        self.steps.append(step)
        self.items.append(item)
        return len(self.items) - 1

    def accept(self, index: int, retry: bool) -> list[Any]:
        """What an item just judged hands on (nothing unless it was accepted)."""
        if retry or index not in self.judging.settled:
            return []
        return list(self.link.hand_on(self.items[index], self.judging.settled[index][0]))


def run_chain(engine: Any, links: Sequence[Link], items: Sequence[Any],
              gates: QueryGates | None = None, samples: int | None = None
              ) -> list[StepOutcome]:
    """Run ``links`` over ``items`` (the first link's); one outcome per link, its items in
    hand-on order. ``gates`` is the run's query index (gated links check against it);
    ``samples`` is best-of-n per item (default: the engine's ``samples``, else 1)."""
    from irforge.steps.step import _streams

    if not links:
        return []
    if links[-1].hand_on is not _nothing:
        raise ValueError(f"the last link ({links[-1].name}) has no link to hand items on to")
    rounds = max(1, int(samples or getattr(engine, "samples", 1) or 1))
    states = [_State(link, Judging(link.name, gates), [], []) for link in links]
    first = states[0]
    for item in items:
        first.add(item)
    if _streams(engine):
        from irforge.llm.sync import run_sync

        run_sync(_stream(engine, states, rounds))
    else:
        _by_rounds(engine, states, rounds)
    return [state.judging.settle(state.steps, state.items) for state in states]


def _by_rounds(engine: Any, states: Sequence[_State], rounds: int) -> None:
    """One link after another, round by round (a batch engine answers whole batches)."""
    from irforge.steps.step import _ask

    for k, state in enumerate(states):
        limits = state.link.limits()
        open_items = list(range(len(state.items)))
        for sample in range(rounds):
            if not open_items:
                break
            results = _ask(engine, state.steps, state.items, open_items, sample, limits)
            again = []
            for index in open_items:
                retry = state.judging.judge(state.steps[index], index, state.items[index],
                                            results[index]) and sample + 1 < rounds
                if retry:
                    again.append(index)
                for item in state.accept(index, retry):
                    states[k + 1].add(item)
            open_items = again


async def _stream(engine: Any, states: Sequence[_State], rounds: int) -> None:
    """Every link at once: each judges in (sample, index) order as answers land and hands
    accepted items on; what waits to go out is sent before any link waits."""
    from irforge.steps.stream import _Calls

    calls = [_Calls(engine, state.link.limits()) for state in states]
    pending: list[dict[int, list[int]]] = [{} for _ in states]  # link -> sample -> indexes
    arrived = [asyncio.Event() for _ in states]
    closed = [False] * len(states)
    done = [asyncio.Event() for _ in states]

    def add(k: int, item: Any) -> None:
        index = states[k].add(item)
        if calls[k].add(states[k].steps[index], item) != index:
            raise AssertionError("a chain link's calls and items went out of step")
        pending[k].setdefault(0, []).append(index)
        arrived[k].set()

    def flush() -> None:
        for k, waiting in enumerate(pending):
            for sample, indexes in sorted(waiting.items()):
                calls[k].send(sample, indexes)
            waiting.clear()

    async def answer(k: int, sample: int, index: int) -> Any:
        future = calls[k].answers.get((sample, index))
        if future is None or not future.done():
            flush()
        return await calls[k].answer(sample, index)

    async def judge_link(k: int) -> None:
        state = states[k]
        try:
            if state.link.gated:  # the gates see every earlier gated link's queries first
                for j in range(k):
                    if states[j].link.gated and not done[j].is_set():
                        flush()
                        await done[j].wait()
            open_items: list[int] = []
            for sample in range(rounds):
                index, again = 0, []
                while True:
                    if sample == 0:
                        if index == len(state.items):
                            if k == 0 or closed[k]:
                                break
                            flush()
                            arrived[k].clear()
                            await arrived[k].wait()
                            continue
                    elif index == len(open_items):
                        break
                    at = index if sample == 0 else open_items[index]
                    result = await answer(k, sample, at)
                    retry = await asyncio.to_thread(  # the loop keeps sending meanwhile
                        state.judging.judge, state.steps[at], at, state.items[at], result)
                    retry = retry and sample + 1 < rounds
                    if retry:
                        again.append(at)
                        pending[k].setdefault(sample + 1, []).append(at)
                    for item in state.accept(at, retry):
                        add(k + 1, item)
                    index += 1
                open_items = again
                if not open_items:
                    break
        finally:
            done[k].set()
            if k + 1 < len(states):
                closed[k + 1] = True
                arrived[k + 1].set()

    tasks = [asyncio.ensure_future(judge_link(k)) for k in range(len(states))]
    try:
        for step, item in zip(states[0].steps, states[0].items, strict=True):
            calls[0].add(step, item)
        calls[0].send(0, range(len(states[0].items)))
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for call in calls:
            await call.close()
