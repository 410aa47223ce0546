"""A wall-clock deadline over a whole HTTP exchange: connect, headers and body.

httpx's timeouts bound each read, so a server sending one header line per second never
times out. :func:`deadline_transport` wraps the transport's network streams: every connect,
read and write waits at most what is left of the deadline set by :func:`until` for the
current thread, and fails with a read timeout once it has passed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

_LOCAL = threading.local()


@contextmanager
def until(at: float) -> Iterator[None]:
    """Bound this thread's HTTP exchanges by the ``time.monotonic()`` instant ``at``."""
    before = getattr(_LOCAL, "at", None)
    _LOCAL.at = at
    try:
        yield
    finally:
        _LOCAL.at = before


def bounded(timeout: float | None) -> float | None:
    """``timeout`` shortened to what is left of the deadline; raises once it has passed."""
    at = getattr(_LOCAL, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the total deadline passed during the exchange")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every wait is cut to the deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, bounded(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, bounded(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return DeadlineStream(self._inner.start_tls(ssl_context, server_hostname,
                                                    bounded(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """The default network backend, its connections and streams bounded by the deadline."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Sequence[Any] | None = None) -> httpcore.NetworkStream:
        return DeadlineStream(self._inner.connect_tcp(host, port, bounded(timeout),
                                                      local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Sequence[Any] | None = None
                            ) -> httpcore.NetworkStream:
        return DeadlineStream(self._inner.connect_unix_socket(path, bounded(timeout),
                                                              socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def deadline_transport() -> httpx.HTTPTransport:
    """An httpx transport whose exchanges honour :func:`until` (headers included)."""
    transport = httpx.HTTPTransport()
    pool = transport._pool  # httpcore.ConnectionPool: connections take its backend when made
    pool._network_backend = DeadlineBackend(pool._network_backend)
    return transport
