"""Pluggable web-search providers that turn queries into candidate PDF URLs (DisastIR 3.3, A).

A provider is any object with ``search(query, limit) -> list[str]``. Providers are found by
name in :data:`PROVIDERS`, or given as ``"package.module:ClassName"`` for your own.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from irforge.core.errors import FormatError, IrforgeError, Problem, require


class SearchProvider(Protocol):
    def search(self, query: str, limit: int) -> list[str]: ...


class SearchError(IrforgeError):
    """A search provider failed for good (after its retries)."""


def _is_rate_limit(exc: Exception) -> bool:
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return status == 429 or "429" in str(exc) or "Too Many Requests" in str(exc)


@dataclass
class GoogleSearch:
    """Google through ``googlesearch-python``, politely: a pause between queries, backoff on 429.

    ``sleep`` is injectable so the backoff schedule can be tested without waiting.
    """

    pause_s: float = 5.0
    max_retries: int = 5
    backoff_s: float = 30.0
    filetype: str | None = "pdf"
    seed: int = 0
    sleep: Callable[[float], None] = time.sleep
    _last_call: float = 0.0

    def search(self, query: str, limit: int) -> list[str]:
        module = require("googlesearch", "corpus")
        text = f"{query} filetype:{self.filetype}" if self.filetype else query
        jitter = random.Random(f"{self.seed}:{query}")
        for attempt in range(self.max_retries + 1):
            wait = self.pause_s - (time.monotonic() - self._last_call)
            if wait > 0:
                self.sleep(wait)
            self._last_call = time.monotonic()
            try:
                return [str(url) for url in module.search(text, num_results=limit, unique=True,
                                                          sleep_interval=self.pause_s)]
            except Exception as exc:
                if not _is_rate_limit(exc) or attempt == self.max_retries:
                    raise SearchError(f"search for {query!r} failed: {exc}") from exc
                self.sleep(self.backoff_s * 2 ** attempt * (1 + jitter.random() * 0.25))
        raise SearchError(f"search for {query!r} failed after {self.max_retries} retries")


def read_url_list(path: Path) -> list[str]:
    """URLs from a text file, one per line; blank lines and ``#`` comments are ignored."""
    path = Path(path)
    if not path.is_file():
        raise FormatError(Problem(path, "URL list not found",
                                  hint="give a text file, one URL a line"))
    urls = []
    for number, line in enumerate(read_text_lines(path), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if not text.lower().startswith(("http://", "https://")):
            raise FormatError(Problem(path, f"not an http(s) URL: {text[:80]!r}", line=number,
                                      hint="each line must start with http:// or https://"))
        urls.append(text)
    return urls


def read_queries(path: Path) -> list[str]:
    """Search queries from a text file, one per line (for example one per event type)."""
    path = Path(path)
    if not path.is_file():
        raise FormatError(Problem(path, "query file not found", hint="one search query a line"))
    return [line.strip() for line in read_text_lines(path)
            if line.strip() and not line.strip().startswith("#")]


def read_text_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file (a leading BOM dropped); a FormatError naming the line
    when it is not UTF-8."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(Problem(path, f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                                  line=line, hint="save the file as UTF-8")) from exc
    return text.splitlines()


PROVIDERS: dict[str, Callable[[], SearchProvider]] = {"google": GoogleSearch}


def get_provider(spec: str) -> SearchProvider:
    """A provider by registry name or ``"module:Class"`` (constructed without arguments)."""
    if spec in PROVIDERS:
        return PROVIDERS[spec]()
    module_name, sep, attr = spec.partition(":")
    if not sep:
        raise IrforgeError(f"unknown search provider {spec!r}; use one of {sorted(PROVIDERS)} "
                           "or 'package.module:ClassName'")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise IrforgeError(f"cannot load search provider {spec!r}: {exc}") from exc
    return factory()
