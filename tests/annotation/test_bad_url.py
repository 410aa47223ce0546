"""A malformed Label Studio URL is a message naming the URL, not a traceback."""

from __future__ import annotations

import pytest

from irforge.annotation.connection import load_settings
from irforge.annotation.errors import AnnotationError


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999", "ftp://host",
                                 "127.0.0.1:8080"])
def test_malformed_label_studio_urls_are_refused_with_the_fix(url: str) -> None:
    with pytest.raises(AnnotationError, match=r"http://127\.0\.0\.1:8080") as caught:
        load_settings(url=url, api_key="token-123456")
    assert caught.value.exit_code == 2 and repr(url) in str(caught.value)
    assert load_settings(url="http://[::1]:8080", api_key="t").url == "http://[::1]:8080"
