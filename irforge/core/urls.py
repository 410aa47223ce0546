"""What makes a server base URL usable: one rule for the option checks and the engine."""

from __future__ import annotations


def http_url(value: object) -> str | None:
    """What is wrong with ``value`` as a server's base URL (None: an http(s) URL with a host);
    an ``ftp://`` or scheme-less base would fail every call after the first was sent."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(str(value))
        if parts.port is not None and parts.port == 0:  # .port raises on a malformed port
            return "has port 0"
    except ValueError as exc:  # a broken IPv6 literal ("http://[::1"), a bad port
        return f"is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "must start with http:// or https:// (e.g. http://localhost:8000/v1)"
    if not parts.hostname:
        return "names no host (e.g. http://localhost:8000/v1)"
    return None
