"""Ordered parallel map with a bounded number of items in flight.

``multiprocessing.Pool.imap`` reads its whole input ahead of the workers, which would hold a
whole corpus in memory; this keeps at most ``window`` items queued.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def imap_bounded(pool: Any, function: Callable[[Item], Result], items: Iterable[Item],
                 window: int) -> Iterator[Result]:
    """Results of ``function`` over ``items`` in input order, at most ``window`` in flight."""
    pending: deque[Any] = deque()
    for item in items:
        pending.append(pool.apply_async(function, (item,)))
        if len(pending) >= max(1, window):
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()
