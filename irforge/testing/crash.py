"""Crash a worker process mid-run: SIGKILL once a scripted server has logged enough requests."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from irforge.testing.scripted import ScriptedServer


def kill_after_requests(worker: subprocess.Popen, server: ScriptedServer, count: int,
                        timeout: float = 120.0) -> None:
    """SIGKILL ``worker`` once ``server`` logged ``count`` requests (or ``timeout`` passed);
    fails with the worker's stderr if it exits on its own first."""
    try:
        deadline = time.monotonic() + timeout
        while len(server.log) < count and time.monotonic() < deadline:
            if worker.poll() is not None:
                stderr = worker.stderr.read().decode() if worker.stderr else ""
                raise AssertionError(f"the worker exited before the kill: {stderr}")
            time.sleep(0.05)
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(30)
    finally:
        if worker.poll() is None:
            os.kill(worker.pid, signal.SIGKILL)
