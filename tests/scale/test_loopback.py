"""Which ``--ray`` addresses name a cluster on this machine's loopback interface (those are
joined with the node kept on 127.0.0.1, so nothing listens beyond it)."""

import pytest

from irforge.scale.loopback import is_loopback_address


@pytest.mark.parametrize("address", ["127.0.0.1:6379", "127.0.0.2:6379", "localhost:6379",
                                     "[::1]:6379"])
def test_loopback_addresses(address: str) -> None:
    assert is_loopback_address(address)


@pytest.mark.parametrize("address", ["10.0.0.1:6379", "head.example.org:6379", "127.0.0.1",
                                     "ray://127.0.0.1:10001", "local", "127.0.0.1:port"])
def test_other_addresses(address: str) -> None:
    assert not is_loopback_address(address)
