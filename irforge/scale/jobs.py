"""What a stage hands an executor: a :class:`BatchJob` and the items, cut into batches.

Its own module so both executors (executor.py's local one and ray_backend.py's) import it and
neither imports the other for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

BatchFunction = Callable[[list[Any]], Sequence[Any]]


@dataclass(frozen=True)
class BatchJob:
    """Work applied batch by batch: ``setup()`` runs once per worker and returns the function
    mapping a list of items to one result per item (a list, or an array of rows)."""

    setup: Callable[[], BatchFunction]
    batch_size: int = 64
    uses_gpu: bool = False
    max_batches_per_worker: int | None = None
    name: str = "batch"


def batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """Consecutive lists of at most ``size`` items."""
    iterator = iter(items)
    while chunk := list(islice(iterator, max(1, size))):
        yield chunk
