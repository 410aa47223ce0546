from __future__ import annotations

import os
import time
from functools import partial

from irforge.scale.executor import LocalExecutor, ready
from irforge.scale.jobs import BatchJob


def _tag(delay: float, batch: list[int]) -> list[tuple[int, int]]:
    """Each item with the id of the process that ran it, after ``delay`` seconds a batch."""
    time.sleep(delay)
    return [(item, os.getpid()) for item in batch]


def _job(delay: float) -> BatchJob:
    return BatchJob(partial(ready, partial(_tag, delay)), batch_size=2, name="tag")


def test_a_short_job_runs_in_this_process_without_a_pool() -> None:
    rows = list(LocalExecutor(2).map(_job(0.0), range(20)))
    assert [item for item, _ in rows] == list(range(20))
    assert {pid for _, pid in rows} == {os.getpid()}


def test_a_job_longer_than_the_inline_time_hands_the_rest_to_a_pool_in_order() -> None:
    rows = list(LocalExecutor(2, inline_seconds=0.1).map(_job(0.06), range(12)))
    assert [item for item, _ in rows] == list(range(12))
    pids = [pid for _, pid in rows]
    assert pids[:4] == [os.getpid()] * 4  # two batches here (0.12 s >= 0.1 s) ...
    assert os.getpid() not in pids[4:]  # ... then every later batch in the spawned workers


def test_no_inline_time_sends_every_batch_to_the_pool() -> None:
    rows = list(LocalExecutor(2, inline_seconds=0).map(_job(0.0), range(6)))
    assert [item for item, _ in rows] == list(range(6))
    assert os.getpid() not in {pid for _, pid in rows}
