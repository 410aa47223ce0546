"""The executor interface: stages hand batch work to an executor and read results back in order.

A stage describes its work as a :class:`BatchJob` (a picklable ``setup`` that builds the
per-worker state once, e.g. a tokenizer or an embedding model, and returns the function applied
to each batch). :class:`LocalExecutor` runs it in this process or a process pool on this
machine; :class:`irforge.scale.ray_backend.RayExecutor` runs the very same function on a Ray
cluster through Ray Data. Both return results in input order, streaming, so a stage writes its
resumable log exactly as before whichever executor ran the work.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any, Protocol

from irforge.scale.jobs import BatchFunction, BatchJob, batched
from irforge.scale.parallel import imap_bounded

ADDRESS_ENV = "IRFORGE_RAY_ADDRESS"
#: seconds of batch work a :class:`LocalExecutor` does in its own process before it starts a
#: process pool for the rest: a spawned worker pays seconds to start (a fresh interpreter
#: importing irforge and the job's libraries), so a job that ends sooner never starts one
INLINE_SECONDS = 2.0


class Executor(Protocol):
    """Runs :class:`BatchJob` s; results come back in input order."""

    distributed: bool

    def map(self, job: BatchJob, items: Iterable[Any]) -> Iterator[Any]: ...

    def map_files(self, job: BatchJob, paths: Sequence[Path]) -> Iterator[Any]:
        """Like ``map`` over ``(file name, file bytes)`` items, the files read by the workers."""
        ...


def ready(function: BatchFunction) -> BatchFunction:
    """The ``setup`` of a job whose batch function needs no per-worker setup of its own (use
    it through ``functools.partial`` so the job pickles)."""
    return function


def read_named(paths: Sequence[Path | str]) -> list[tuple[str, bytes]]:
    """``(file name, bytes)`` of each path."""
    return [(Path(path).name, Path(path).read_bytes()) for path in paths]


def _reading(setup: Callable[[], BatchFunction]) -> BatchFunction:
    """A batch function over paths that reads the files and hands their bytes to ``setup()``."""
    function = setup()
    return lambda paths: function(read_named(paths))


_WORKER_FUNCTION: BatchFunction | None = None


def _init_worker(setup: Callable[[], BatchFunction]) -> None:
    global _WORKER_FUNCTION
    _WORKER_FUNCTION = setup()


def _run_batch(batch: list[Any]) -> list[Any]:
    assert _WORKER_FUNCTION is not None
    return list(_WORKER_FUNCTION(batch))


class LocalExecutor:
    """This machine: in this process when ``workers`` is 1 (or the input is one batch), else
    in this process for the first ``inline_seconds`` of batch work and then, if batches are
    left, in a spawned process pool with at most ``4 * workers`` batches in flight."""

    distributed = False

    def __init__(self, workers: int | None = None,
                 inline_seconds: float = INLINE_SECONDS) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.inline_seconds = inline_seconds

    def map(self, job: BatchJob, items: Iterable[Any]) -> Iterator[Any]:
        single_batch = isinstance(items, Sized) and len(items) <= job.batch_size
        batches = batched(items, job.batch_size)
        if self.workers <= 1 or single_batch:
            yield from _inline(job, batches, None)
            return
        if self.inline_seconds > 0:
            yield from _inline(job, batches, self.inline_seconds)
            first = next(batches, None)
            if first is None:  # the job ended in this process: no pool to start
                return
            batches = chain([first], batches)
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(
                self.workers, initializer=_init_worker, initargs=(job.setup,),
                maxtasksperchild=job.max_batches_per_worker) as pool:
            for results in imap_bounded(pool, _run_batch, batches, 4 * self.workers):
                yield from results

    def map_files(self, job: BatchJob, paths: Sequence[Path]) -> Iterator[Any]:
        reading = BatchJob(partial(_reading, job.setup), job.batch_size, job.uses_gpu,
                           job.max_batches_per_worker, job.name)
        return self.map(reading, list(paths))


def _inline(job: BatchJob, batches: Iterator[list[Any]], seconds: float | None
            ) -> Iterator[Any]:
    """Results of ``batches`` run in this process: all of them, or (``seconds`` given) until
    the batches done have taken that long; the rest stay in ``batches``."""
    function = job.setup()
    start = time.perf_counter()
    for batch in batches:
        yield from function(batch)
        if seconds is not None and time.perf_counter() - start >= seconds:
            return


_ACTIVE: ContextVar[Executor | None] = ContextVar("irforge_executor", default=None)


def active_executor() -> Executor | None:
    """The executor set by :func:`using_executor` (``--ray``), or None."""
    return _ACTIVE.get()


def distributed_executor() -> Executor | None:
    """The active executor when it spreads work over a cluster, else None."""
    executor = _ACTIVE.get()
    return executor if executor is not None and executor.distributed else None


def executor_for(workers: int | None = None, executor: Executor | None = None) -> Executor:
    """The executor a stage uses: the one given, else the active one, else this machine's."""
    return executor or _ACTIVE.get() or LocalExecutor(workers)


@contextmanager
def using_executor(executor: Executor | None) -> Iterator[Executor | None]:
    """Make ``executor`` the active one inside the ``with`` block."""
    token = _ACTIVE.set(executor)
    try:
        yield executor
    finally:
        _ACTIVE.reset(token)


@contextmanager
def cluster(address: str | None) -> Iterator[Executor | None]:
    """Connect to the Ray cluster at ``address`` (``local`` starts one on 127.0.0.1) and make
    it the active executor; without an address (or ``IRFORGE_RAY_ADDRESS``), do nothing."""
    address = address or os.environ.get(ADDRESS_ENV) or None
    if not address:
        yield None
        return
    from irforge.scale.ray_backend import RayExecutor

    executor = RayExecutor.connect(address)
    try:
        with using_executor(executor):
            yield executor
    finally:
        executor.close()
