"""The Ray executor: a stage's :class:`~irforge.scale.executor.BatchJob` run by Ray Data.

Items become a Ray Data dataset (``from_items``, or ``read_binary_files`` for files), the job's
function runs in an actor pool (``map_batches`` with a callable class, so a model or tokenizer
is loaded once per actor; one GPU per actor for jobs that use one when the cluster has GPUs),
and results stream back in input order (``preserve_order``; each row also carries its index
and the driver re-sequences, so order never depends on scheduling). Items are sent in windows
so the driver never holds more than ``window`` of them at once.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Iterable, Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from irforge.core.errors import IrforgeError, require
from irforge.scale.jobs import BatchFunction, BatchJob, batched
from irforge.scale.loopback import LOOPBACK, is_loopback_address, single_machine

GPUS_ENV = "IRFORGE_RAY_NUM_GPUS"
LOCAL = "local"


class _BatchActor:
    """Runs a job's function on rows that each hold one pickled batch of items, so every
    call sees exactly the batch the local executor would have formed."""

    def __init__(self, setup: Any) -> None:
        self.function: BatchFunction = setup()

    def __call__(self, rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = np.empty(len(rows["index"]), dtype=object)
        for number, blob in enumerate(rows["batch"]):
            items = pickle.loads(blob)
            results = list(self.function(items))
            if len(results) != len(items):
                raise RuntimeError(f"a batch of {len(items)} items gave {len(results)} results")
            out[number] = pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
        return {"index": rows["index"], "result": out}


class _FileActor:
    """Runs a job's function on ``(file name, bytes)`` rows read by ``read_binary_files``."""

    def __init__(self, setup: Any) -> None:
        self.function: BatchFunction = setup()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        items = [(Path(str(path)).name, bytes(data))
                 for path, data in zip(batch["path"], batch["bytes"], strict=True)]
        results = list(self.function(items))
        if len(results) != len(items):
            raise RuntimeError(f"{len(items)} files gave {len(results)} results")
        out = np.empty(len(results), dtype=object)
        out[:] = [pickle.dumps([result], protocol=pickle.HIGHEST_PROTOCOL)
                  for result in results]
        return {"path": batch["path"], "result": out}


def _key(value: Any) -> Any:
    """A row's index, or the file name of its path."""
    value = value.item() if hasattr(value, "item") else value
    return Path(value).name if isinstance(value, str) else int(value)


def _in_order(batches: Iterable[dict[str, np.ndarray]], key: str, position: dict[Any, int]
              ) -> Iterator[Any]:
    """Results in input order, whatever order the rows arrive in (each row's result is a
    pickled list of results)."""
    waiting: dict[int, bytes] = {}
    expected = 0
    for batch in batches:
        for name, blob in zip(batch[key], batch["result"], strict=True):
            waiting[position[_key(name)]] = blob
        while expected in waiting:
            yield from pickle.loads(waiting.pop(expected))
            expected += 1
    if waiting or expected != len(position):
        raise RuntimeError(f"Ray returned {expected} of {len(position)} results in order")


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """Fail fast, with the fix, when nothing listens at a ``HOST:PORT`` cluster address
    (``ray.init`` would retry for a minute)."""
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise IrforgeError(f"--ray {address!r}: give the head node's HOST:PORT (for example "
                           "10.0.0.1:6379), ray://HOST:PORT, or 'local'")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise IrforgeError(
            f"no Ray cluster answers at {address} ({exc}); start one with 'ray start --head "
            f"--port {port}' on {host} (and 'ray start --address {host}:{port}' on each other "
            "node), or use --ray local") from exc


def _check_loopback(ray: Any) -> None:
    """Stop, rather than run, when the local cluster's node is not on 127.0.0.1 (its services
    would then listen on every interface)."""
    found = ray.util.get_node_ip_address()
    if found != LOOPBACK:
        ray.shutdown()
        raise IrforgeError(
            f"the local Ray cluster came up on {found}, not {LOOPBACK}, so its services would "
            "listen on every network interface; this irforge supports ray 2.60 (pip install "
            "'irforge[ray]'), or start a cluster yourself and give its HOST:PORT to --ray")


class RayExecutor:
    """Batch jobs on a Ray cluster through Ray Data actor pools."""

    distributed = True

    def __init__(self, ray: Any, window: int = 100_000,
                 gpus_per_worker: float | None = None) -> None:
        self.ray, self.window = ray, window
        resources = ray.cluster_resources()
        self.cpus = max(1, int(resources.get("CPU", 1)))
        self.gpus = float(resources.get("GPU", 0))
        if gpus_per_worker is None:
            configured = os.environ.get(GPUS_ENV)
            gpus_per_worker = float(configured) if configured else (1.0 if self.gpus else 0.0)
        self.gpus_per_worker = gpus_per_worker
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False
        logging.getLogger("ray.data").setLevel(logging.WARNING)

    @classmethod
    def connect(cls, address: str, **options: Any) -> RayExecutor:
        """Join the cluster at ``address`` (``HOST:PORT`` or ``ray://``), or start one on this
        machine for ``local``: every service on 127.0.0.1 only, Ray's token authentication on."""
        ray = require("ray", "ray")
        require("ray.data", "ray")
        if address != LOCAL:
            _check_reachable(address)
        local = address == LOCAL
        start = {"_node_ip_address": LOOPBACK, "include_dashboard": False} if local else {}
        try:
            with single_machine() if local or is_loopback_address(address) else nullcontext():
                ray.init(address=address, log_to_driver=False, configure_logging=False, **start)
            if local:
                _check_loopback(ray)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise IrforgeError(
                f"cannot reach the Ray cluster at {address!r} ({exc}); start it with "
                "'ray start --head' (and 'ray start --address HEAD:PORT' on each other node), "
                "give the head's HOST:PORT to --ray, or use --ray local") from exc
        try:
            executor = cls(ray, **options)
            executor.check_workers()
        except BaseException:
            ray.shutdown()
            raise
        return executor

    def check_workers(self) -> None:
        """Fail early, with the fix, when the cluster's workers run another irforge."""
        import irforge

        @self.ray.remote(num_cpus=0)
        def version() -> str | None:
            try:
                import irforge as remote

                return remote.__version__
            except ImportError:
                return None

        found = self.ray.get(version.remote())
        if found != irforge.__version__:
            raise IrforgeError(
                f"the Ray workers have irforge {found or 'not installed'}, this process "
                f"{irforge.__version__}: install the same irforge (pip install "
                "'irforge[ray,corpus,eval]') on every node of the cluster")

    def close(self) -> None:
        self.ray.shutdown()

    def actors(self, job: BatchJob) -> int:
        """Actor pool size: one per GPU for GPU jobs on a GPU cluster, else one per CPU."""
        if job.uses_gpu and self.gpus_per_worker > 0:
            return max(1, int(self.gpus // self.gpus_per_worker))
        return self.cpus

    def _map_options(self, job: BatchJob, rows_per_call: int, rows: int) -> dict[str, Any]:
        gpus = self.gpus_per_worker if job.uses_gpu else 0.0
        most = self.actors(job)
        pool = self.ray.data.ActorPoolStrategy(min_size=1, max_size=most,
                                               initial_size=max(1, min(most, rows)))
        return {"fn_constructor_args": (job.setup,), "batch_size": rows_per_call,
                "compute": pool,
                "num_cpus": 1, "num_gpus": gpus, "batch_format": "numpy",
                "zero_copy_batch": True}

    def map(self, job: BatchJob, items: Iterable[Any]) -> Iterator[Any]:
        per_window = max(1, self.window // max(1, job.batch_size))
        for window in batched(batched(items, job.batch_size), per_window):
            rows = [{"index": number, "batch": pickle.dumps(batch, pickle.HIGHEST_PROTOCOL)}
                    for number, batch in enumerate(window)]
            dataset = self.ray.data.from_items(rows, override_num_blocks=min(len(rows), 2000))
            dataset = dataset.map_batches(_BatchActor, **self._map_options(job, 1, len(rows)))
            yield from _in_order(dataset.iter_batches(batch_size=None, batch_format="numpy"),
                                 "index", {number: number for number in range(len(rows))})

    def map_files(self, job: BatchJob, paths: Sequence[Path]) -> Iterator[Any]:
        for window in batched(paths, self.window):
            names = [str(Path(path).resolve()) for path in window]
            position = {Path(name).name: number for number, name in enumerate(names)}
            if len(position) != len(names):
                raise ValueError("map_files needs distinct file names")
            blocks = max(1, min(len(names), 4 * self.actors(job)))
            dataset = self.ray.data.read_binary_files(
                names, include_paths=True, override_num_blocks=blocks, num_cpus=0)
            dataset = dataset.map_batches(_FileActor, **self._map_options(
                job, job.batch_size, -(-len(names) // job.batch_size)))
            yield from _in_order(dataset.iter_batches(batch_size=None, batch_format="numpy"),
                                 "path", position)
