"""Download one URL as a PDF: timeouts, a size limit, retries with backoff, a content check.

The result is always an :class:`Outcome` (never an exception), so the collect stage can log
every URL with what happened to it. Only http(s) URLs to public addresses are fetched (a
loopback, private, link-local or reserved address needs ``allow_private``; even then a
redirect may not move to another private host or port), and every URL has a total deadline
over all its attempts, not only a per-read timeout.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from irforge.corpus.deadline import deadline_transport, until

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
    total_timeout_s: float = 300.0  # all attempts of one URL together
    allow_private: bool = False  # loopback / private / link-local targets (and their redirects)
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


def refusal(url: str, allow_private: bool) -> str | None:
    """Why ``url`` must not be fetched (scheme, or an address inside the network), or None."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        return f"unsupported scheme {parts.scheme or 'none'!r} (only http and https)"
    try:
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        return f"malformed URL: {exc}"
    if not host:
        return "no host in the URL"
    if allow_private:
        return None
    for address in _addresses(host, port):
        if not address.is_global or address.is_multicast:
            return (f"{host} is a loopback, private, link-local or reserved address "
                    f"({address}); pass --allow-private to fetch it")
    return None


def _addresses(host: str, port: int | None) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The addresses ``host`` names (itself when it is one); none when it does not resolve
    (the request then fails as a network error)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, port or 443, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]


def _redirect_refusal(current: str, target: str, settings: DownloadSettings) -> str | None:
    """A redirect hop is checked like a URL; into a private range it must stay on one origin."""
    reason = refusal(target, settings.allow_private)
    if reason is not None:
        return f"redirect to {target}: {reason}"
    if settings.allow_private and refusal(target, False) is not None:
        here, there = urlsplit(current), urlsplit(target)
        if (here.hostname, here.port) != (there.hostname, there.port):
            return (f"redirect to {target}: another private host or port "
                    "(redirects may not move between addresses inside the network)")
    return None


def _fetch(client: httpx.Client, url: str, settings: DownloadSettings, folder: Path,
           deadline: float) -> Outcome:
    """One attempt, following redirects hop by hop; raises httpx errors for the retry loop."""
    current = url
    for _ in range(settings.max_redirects + 1):
        with client.stream("GET", current) as response:
            if not response.is_redirect:
                return _receive(response, url, settings, folder, deadline)
            target = urljoin(current, response.headers.get("location", ""))
            reason = _redirect_refusal(current, target, settings)
            if reason is not None:
                return Outcome(url=url, status="refused", detail=reason, final_url=target,
                               http_status=response.status_code)
            current = target
    return Outcome(url=url, status="too_many_redirects",
                   detail=f"more than {settings.max_redirects} redirects", final_url=current)


def _receive(response: httpx.Response, url: str, settings: DownloadSettings, folder: Path,
             deadline: float) -> Outcome:
    """Check the answer and stream its body into a temp file, within the deadline."""
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
            for block in response.iter_bytes():  # as it arrives (no 64 KiB wait)
                if time.monotonic() > deadline:
                    raise _PastDeadline(size)
                size += len(block)
                if size > settings.max_bytes:
                    raise _TooLarge(size)
                if len(head) < 5:
                    head += block[:5]
                digest.update(block)
                handle.write(block)
        if not head.startswith(b"%PDF-"):
            raise _NotPdf(head)
    except (_TooLarge, _NotPdf, _PastDeadline, httpx.HTTPError, OSError) as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, _PastDeadline):
            return Outcome(status="timeout", detail=f"deadline: more than "
                           f"{settings.total_timeout_s:g} s in total", bytes=size, **base)
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


class _PastDeadline(Exception):
    pass


def make_client(settings: DownloadSettings) -> httpx.Client:
    timeout = httpx.Timeout(settings.read_timeout_s, connect=settings.connect_timeout_s)
    # the transport cuts every read to the URL's total deadline (a header trickle included)
    return httpx.Client(timeout=timeout, follow_redirects=False,  # hop by hop, each checked
                        transport=deadline_transport(),
                        max_redirects=settings.max_redirects,
                        headers={"User-Agent": settings.user_agent,
                                 "Accept": "application/pdf,*/*"})


def download(client: httpx.Client, url: str, settings: DownloadSettings, folder: Path,
             sleep: Callable[[float], None] = time.sleep) -> Outcome:
    """Fetch ``url`` into a temp file in ``folder``; retry timeouts, network errors, 5xx/429
    until the total deadline; a refused URL is not retried."""
    reason = refusal(url, settings.allow_private)
    if reason is not None:
        return Outcome(url=url, status="refused", detail=reason, attempts=0)
    Path(folder).mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + settings.total_timeout_s
    last: Outcome | None = None
    for attempt in range(1, settings.retries + 2):
        try:
            with until(deadline):
                outcome = _fetch(client, url, settings, Path(folder), deadline)
        except httpx.TooManyRedirects as exc:
            return Outcome(url=url, status="too_many_redirects", detail=str(exc), attempts=attempt)
        except httpx.TimeoutException as exc:
            if time.monotonic() >= deadline:
                return Outcome(url=url, status="timeout", attempts=attempt, detail=(
                    f"deadline: more than {settings.total_timeout_s:g} s in total"))
            last = Outcome(url=url, status="timeout", detail=type(exc).__name__, attempts=attempt)
        except (httpx.HTTPError, OSError) as exc:
            last = Outcome(url=url, status="network_error", detail=f"{type(exc).__name__}: {exc}",
                           attempts=attempt)
        else:
            last = _with_attempts(outcome, attempt)
            if outcome.http_status not in RETRY_STATUS or outcome.detail.startswith("deadline"):
                return last
        pause = settings.backoff_s * 2 ** (attempt - 1)
        if attempt <= settings.retries:
            if time.monotonic() + pause >= deadline:
                return last
            sleep(pause)
    assert last is not None
    return last


def _with_attempts(outcome: Outcome, attempts: int) -> Outcome:
    return Outcome(**{**outcome.__dict__, "attempts": attempts})
