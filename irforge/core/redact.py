"""Blank out every credential before text is stored: failures, raw outputs, logs, manifest, cache.

Secrets are found two ways: by value (every environment variable whose name says it holds
a key, token, secret or password, plus keys passed in code and registered here) and by
shape (``Authorization``/``api-key`` headers, ``sk-...`` tokens, ``user:password@`` in URLs,
``key=``/``token=`` query parameters). ``redact`` is applied at every write boundary.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

MASK = "***"
SECRET_WORDS = frozenset({"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD",
                          "CREDENTIAL", "CREDENTIALS"})
MIN_SECRET_LENGTH = 6  # shorter values would blank ordinary words out of the data
# (pattern, replacement, cue): a pattern cannot match unless its cue is in the lowered text,
# so the regex runs only on texts that could hold such a credential (redact is on hot paths)
SHAPES = (
    # Authorization: Bearer sk-...  /  'authorization': 'Basic abc'
    (re.compile(r"(?i)((?:proxy-)?authorization['\"]?\s*[:=]\s*['\"]?(?:bearer|basic|token)?\s*)"
                r"[^\s'\",}\]]+"), r"\1" + MASK, "authorization"),
    # api-key: ..., x-api-key=..., "api_key": "..."
    (re.compile(r"(?i)((?:x-)?api[-_]?key['\"]?\s*[:=]\s*['\"]?)[^\s'\",}\]&]+"),
     r"\1" + MASK, "api"),
    # sk-..., sk-proj-..., sk-ant-... shaped provider tokens
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), "sk-" + MASK, "sk-"),
    # scheme://user:password@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]+@"), r"\1" + MASK + "@", "://"),
    # ?key=... &token=... &access_token=... &sig=...
    (re.compile(r"(?i)([?&](?:api_?key|key|token|access_token|auth|sig|signature|password)=)"
                r"[^&\s'\"]+"), r"\1" + MASK, "="),
)

_REGISTERED: set[str] = set()
_LOCK = threading.Lock()
# (a copy of the environment's raw mapping, registrations seen, the secrets found then):
# redact runs on every cache write, and scanning the environment each time dominated it
_KNOWN: tuple[dict[Any, Any], int, tuple[str, ...]] | None = None


def register_secret(value: str | None) -> None:
    """Remember a key that did not come from the environment (e.g. ``Engine(api_key=...)``)."""
    if value and len(value) >= MIN_SECRET_LENGTH:
        with _LOCK:
            _REGISTERED.add(value)


@lru_cache(maxsize=1024)
def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a credential (``*_API_KEY``...)."""
    return any(part in SECRET_WORDS for part in name.upper().split("_"))


def known_secrets() -> tuple[str, ...]:
    """Every secret value this process can see, longest first (so prefixes do not win).

    Recomputed only when the environment or the registered keys changed: the check compares
    ``os.environ``'s raw mapping with a copy (a C-level dict comparison, about a microsecond).
    """
    global _KNOWN
    raw = getattr(os.environ, "_data", None)  # what os.environ reads and writes through
    known = _KNOWN
    registered = len(_REGISTERED)  # the set only grows
    if known is not None and known[1] == registered and known[0] == raw:
        return known[2]
    snapshot = dict(raw) if isinstance(raw, dict) else None
    found = {value for name, value in os.environ.items()
             if len(value) >= MIN_SECRET_LENGTH and is_secret_name(name)}
    with _LOCK:
        found |= _REGISTERED
        registered = len(_REGISTERED)
    secrets = tuple(sorted(found, key=len, reverse=True))
    if snapshot is not None:
        _KNOWN = (snapshot, registered, secrets)
    return secrets


def redact(text: str | None) -> str | None:
    """``text`` with every credential replaced by ``***`` (None stays None)."""
    if not text:
        return text
    for secret in known_secrets():
        if secret in text:
            text = text.replace(secret, MASK)
    lowered = text.lower()
    for pattern, replacement, cue in SHAPES:
        if cue in lowered:
            text = pattern.sub(replacement, text)
    return text


def contains_secret(text: str | None) -> bool:
    """Whether ``text`` holds a credential :func:`redact` would blank (a generated item that
    does is rejected, not stored with ``***``)."""
    return bool(text) and redact(text) != text


def redact_data(data: Any) -> Any:
    """A copy of JSON-like ``data`` with every string value redacted."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, Mapping):
        return {key: redact_data(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [redact_data(value) for value in data]
    return data
