"""Best-of-n per item: an item whose answer fails is asked again at once, not after its round.

:func:`stream_answers` sends every item of a step (one engine call per output model), then
judges the answers as they land, in the fixed order (sample, item index): all first answers in
input order, then the second samples of the items that failed, and so on, the order the
round-by-round loop of :func:`~irforge.steps.step.run_step` judges in. The query gates are
order-dependent (of two equal queries the first admitted is kept), so judging in that order
keeps results, failures and requests identical whatever the answers' timing; what changes is
when a failed item's next sample goes out: as soon as its answer is judged, while the other
items are still out, instead of after the slowest item of its round.

Each answer is judged on a worker thread, one at a time in that order: a judge that takes a
while (a validator encoding the query) does not hold up the event loop, which goes on sending
requests and taking answers meanwhile.

A retry's output token limit is the largest of its output model's items in the step (the
first round's), known before any answer, so a request never depends on which other items
failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from irforge.steps.failures import FINAL_STATUSES

# (item index, its answer) -> True when the answer failed and another sample may fix it
Judge = Callable[[int, Any], bool]


class _Calls:
    """The engine calls of one step: each answer's future by (sample, index), and each
    call's task (awaited before a final status is judged, so its message is the call's last).

    Items may be added while answers are out (a chained step gets its items as the step
    before accepts them, irforge/steps/chain.py); item i's step is ``steps[i]`` (one step
    name, templates may differ). A request's token limit is ``limits[(template, model)]``,
    else the item's own, never one that depends on which other items went out with it.
    """

    def __init__(self, engine: Any, limits: Mapping[tuple[str, type], int]) -> None:
        self.engine, self.limits = engine, limits
        self.steps: list[Any] = []
        self.items: list[Any] = []
        self.keys: list[tuple[str, type, int]] = []  # (template, model, token limit) per item
        self.answers: dict[tuple[int, int], asyncio.Future[Any]] = {}
        self.call_of: dict[tuple[int, int], asyncio.Task[Any]] = {}

    def add(self, step: Any, item: Any) -> int:
        """Add one item (not sent yet); returns its index."""
        model = step.model_for(item)  # built once per item
        limit = self.limits.get((step.template, model)) or step.token_limit(item)
        self.steps.append(step)
        self.items.append(item)
        self.keys.append((step.template, model, limit))
        return len(self.items) - 1

    def send(self, sample: int, indexes: Sequence[int]) -> None:
        """One engine call per (template, output model) for ``indexes`` at ``sample``."""
        loop = asyncio.get_running_loop()
        groups: dict[tuple[str, type, int], list[int]] = {}
        for index in indexes:
            groups.setdefault(self.keys[index], []).append(index)
        for (template, model, limit), members in groups.items():
            futures = [loop.create_future() for _ in members]
            for index, future in zip(members, futures, strict=True):
                self.answers[(sample, index)] = future
            options: dict[str, Any] = {"max_tokens": limit}
            if sample:
                options["sample"] = sample
            task = asyncio.ensure_future(self.engine.arun(
                [dict(self.steps[i].variables(self.items[i])) for i in members],
                template, model, step=self.steps[members[0]].name,
                on_result=lambda position, result, futures=futures:
                    _resolve(futures[position], result), **options))
            task.add_done_callback(lambda done, futures=futures: _settle_all(done, futures))
            for index in members:
                self.call_of[(sample, index)] = task

    async def answer(self, sample: int, index: int) -> Any:
        """The answer of ``index`` at ``sample`` (its call finished first when it is final)."""
        result = await self.answers[(sample, index)]
        if result.status in FINAL_STATUSES:
            await self.call_of[(sample, index)]
        return result

    async def close(self) -> None:
        """Wait for the calls whose answers all landed (they are counting them in the engine's
        step statistics), cancel those with answers still out (an error stopped the step)."""
        tasks = [task for task in set(self.call_of.values()) if not task.done()]
        landed = {id(task): all(self.answers[key].done() for key, call in self.call_of.items()
                                if call is task) for task in tasks}
        for task in tasks:
            if not landed[id(task)]:
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _resolve(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():
        future.set_result(result)


def _settle_all(task: asyncio.Task[Any], futures: Sequence[asyncio.Future[Any]]) -> None:
    """When a call ends, every answer it did not report gets its result or its error."""
    if task.cancelled():
        for future in futures:
            future.cancel()
        return
    error = task.exception()
    results = None if error is not None else task.result()
    for position, future in enumerate(futures):
        if future.done():
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(results[position])


async def stream_answers(engine: Any, step: Any, items: Sequence[Any], rounds: int,
                         judge: Judge, limits: Mapping[tuple[str, type], int]) -> None:
    """Ask for every item, judge each answer in (sample, index) order as it lands, and ask
    again at once for an item ``judge`` says another sample may fix (up to ``rounds``);
    ``limits``: the token limit of each (template, output model)."""
    calls = _Calls(engine, limits)
    open_items = [calls.add(step, item) for item in items]
    calls.send(0, open_items)
    try:
        for sample in range(rounds):
            retry: list[int] = []
            again: list[int] = []
            for index in open_items:
                future = calls.answers[(sample, index)]
                if not future.done() and retry:  # about to wait: send the retries first
                    calls.send(sample + 1, retry)
                    retry = []
                result = await calls.answer(sample, index)
                if await asyncio.to_thread(judge, index, result) and sample + 1 < rounds:
                    retry.append(index)
                    again.append(index)
            if retry:
                calls.send(sample + 1, retry)
            open_items = again
    finally:
        await calls.close()
