"""Download one URL as a PDF: timeouts, a size limit, retries with backoff, a content check.

The result is always an :class:`Outcome` (never an exception), so the collect stage can log
every URL with what happened to it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

PDF_TYPES = {"application/pdf", "application/x-pdf", "application/acrobat"}
GENERIC_TYPES = {"application/octet-stream", "binary/octet-stream", "application/download",
                 "application/force-download", ""}
RETRY_STATUS = {408, 425, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class DownloadSettings:
    """How patient and how strict a download is."""

    connect_timeout_s: float = 10.0
    read_timeout_s: float = 30.0
    max_bytes: int = 50 * 1024 * 1024
    retries: int = 2
    backoff_s: float = 1.0
    max_redirects: int = 5
    user_agent: str = "irforge-corpus/0.1 (+https://github.com/irforge)"


@dataclass(frozen=True)
class Outcome:
    """What happened to one URL: ``status`` is ``ok`` or the reason it yielded no file."""

    url: str
    status: str
    detail: str = ""
    final_url: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    bytes: int = 0
    sha256: str | None = None
    attempts: int = 0
    temp_path: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def normalize_url(url: str) -> str:
    """The form used for exact-URL dedup: no fragment, lower-case scheme and host, no :80/:443."""
    parts = urlsplit(url.strip())
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    port = parts.port
    if port and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    if parts.username:
        host = f"{parts.username}@{host}"
    return urlunsplit((scheme, host, parts.path or "/", parts.query, ""))


def _media_type(value: str | None) -> str:
    return (value or "").split(";")[0].strip().lower()


def _fetch(client: httpx.Client, url: str, settings: DownloadSettings, folder: Path) -> Outcome:
    """One attempt; raises httpx errors for the retry loop to judge."""
    with client.stream("GET", url) as response:
        base: dict[str, Any] = {"url": url, "final_url": str(response.url),
                                "http_status": response.status_code,
                                "content_type": _media_type(response.headers.get("content-type"))}
        if response.status_code >= 400:
            return Outcome(status="http_error", detail=f"HTTP {response.status_code}", **base)
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > settings.max_bytes:
            return Outcome(status="too_large", detail=f"Content-Length {declared} > "
                           f"{settings.max_bytes}", **base)
        if base["content_type"] not in PDF_TYPES | GENERIC_TYPES:
            return Outcome(status="not_pdf", detail=f"content type {base['content_type']}", **base)
        digest, size = hashlib.sha256(), 0
        fd, tmp = tempfile.mkstemp(suffix=".part", dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                head = b""
                for block in response.iter_bytes(65536):
                    size += len(block)
                    if size > settings.max_bytes:
                        raise _TooLarge(size)
                    if len(head) < 5:
                        head += block[:5]
                    digest.update(block)
                    handle.write(block)
            if not head.startswith(b"%PDF-"):
                raise _NotPdf(head)
        except (_TooLarge, _NotPdf, httpx.HTTPError, OSError) as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, _TooLarge):
                return Outcome(status="too_large", detail=f"more than {settings.max_bytes} bytes",
                               bytes=size, **base)
            if isinstance(exc, _NotPdf):
                return Outcome(status="not_pdf", detail="body does not start with %PDF-",
                               bytes=size, **base)
            raise
        return Outcome(status="ok", bytes=size, sha256=digest.hexdigest(), temp_path=tmp, **base)


class _TooLarge(Exception):
    pass


class _NotPdf(Exception):
    pass


def make_client(settings: DownloadSettings) -> httpx.Client:
    timeout = httpx.Timeout(settings.read_timeout_s, connect=settings.connect_timeout_s)
    return httpx.Client(timeout=timeout, follow_redirects=True,
                        max_redirects=settings.max_redirects,
                        headers={"User-Agent": settings.user_agent,
                                 "Accept": "application/pdf,*/*"})


def download(client: httpx.Client, url: str, settings: DownloadSettings, folder: Path,
             sleep: Callable[[float], None] = time.sleep) -> Outcome:
    """Fetch ``url`` into a temp file in ``folder``; retry timeouts, network errors, 5xx/429."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    last: Outcome | None = None
    for attempt in range(1, settings.retries + 2):
        try:
            outcome = _fetch(client, url, settings, Path(folder))
        except httpx.TooManyRedirects as exc:
            return Outcome(url=url, status="too_many_redirects", detail=str(exc), attempts=attempt)
        except httpx.TimeoutException as exc:
            last = Outcome(url=url, status="timeout", detail=type(exc).__name__, attempts=attempt)
        except (httpx.HTTPError, OSError) as exc:
            last = Outcome(url=url, status="network_error", detail=f"{type(exc).__name__}: {exc}",
                           attempts=attempt)
        else:
            last = _with_attempts(outcome, attempt)
            if outcome.http_status not in RETRY_STATUS:
                return last
        if attempt <= settings.retries:
            sleep(settings.backoff_s * 2 ** (attempt - 1))
    assert last is not None
    return last


def _with_attempts(outcome: Outcome, attempts: int) -> Outcome:
    return Outcome(**{**outcome.__dict__, "attempts": attempts})
