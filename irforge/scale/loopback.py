"""Ray clusters on this machine's loopback interface: 127.0.0.1 only.

Ray 2.60 binds each of its gRPC servers (GCS, raylet node and object managers, the
runtime-env agent, every worker and driver) to all interfaces unless the node's IP address is
127.0.0.1, and on Linux it rewrites a loopback node address to the machine's network address
(``services.resolve_ip_for_localhost``), so ``--node-ip-address 127.0.0.1`` alone still
listens everywhere. The rewrite is skipped when Ray treats the machine as one that cannot join
a multi-node cluster (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``); this module turns that on for
the moment a driver starts or joins a cluster at a loopback address. See ``docs/scale.md``.
"""

from __future__ import annotations

import importlib
import ipaddress
from collections.abc import Iterator
from contextlib import contextmanager

LOOPBACK = "127.0.0.1"


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (an IP address or ``localhost``) names this machine's loopback."""
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_loopback_address(address: str) -> bool:
    """Whether a ``HOST:PORT`` cluster address is on the loopback interface."""
    host, _, port = address.rpartition(":")
    return bool(host) and port.isdigit() and is_loopback_host(host)


@contextmanager
def single_machine() -> Iterator[None]:
    """While starting or joining a cluster on 127.0.0.1: keep the node address 127.0.0.1 (Ray
    would swap it for the network address), so every server Ray starts binds to loopback."""
    constants = importlib.import_module("ray._private.ray_constants")
    saved = constants.ENABLE_RAY_CLUSTER
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = saved
