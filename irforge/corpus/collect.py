"""Stage 1, collect: search queries and/or a URL list -> downloaded, deduplicated PDFs.

DisastIR (3.3, Appendix A step 1) searched one query per event type and removed documents
with identical download links. Here every URL gets one row in ``collect/downloads.jsonl``
saying what happened to it; a re-run skips every URL that already has a row, so a killed
collect never downloads a finished file again. Duplicates are caught twice: by normalized URL
before any request, and by SHA-256 of the content after the download.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict
from pathlib import Path
from typing import Any

from irforge.core.errors import EmptyResultError
from irforge.core.redact import redact
from irforge.corpus.download import DownloadSettings, Outcome, download, make_client, normalize_url
from irforge.corpus.search import SearchError, SearchProvider
from irforge.corpus.state import CorpusWork

# Outcomes worth another try with ``retry_failed``: the server or network may do better later.
TRANSIENT = {"timeout", "network_error"}
TRANSIENT_HTTP = {408, 425, 429, 500, 502, 503, 504}


def _is_transient(row: dict[str, Any]) -> bool:
    return row["status"] in TRANSIENT or (row["status"] == "http_error"
                                          and row.get("http_status") in TRANSIENT_HTTP)


def search_urls(work: CorpusWork, queries: Sequence[str], provider: SearchProvider,
                per_query: int) -> list[str]:
    """Run each query not yet searched, log its results, and return all result URLs in order."""
    log = work.log("collect", "search.jsonl")
    done = {row["query"]: row for row in log.rows() if row.get("status") == "ok"}
    with log.writer() as writer:
        for query in queries:
            if query in done:
                continue
            try:
                urls = provider.search(query, per_query)
            except SearchError as exc:
                writer.write({"query": query, "status": "error", "error": str(exc), "urls": []})
                continue
            done[query] = {"query": query, "status": "ok", "urls": urls}
            writer.write(done[query])
    return [url for query in queries if query in done for url in done[query]["urls"]]


def collect(work: CorpusWork, urls: Sequence[str] = (), queries: Sequence[str] = (),
            provider: SearchProvider | None = None, per_query: int = 20,
            settings: DownloadSettings | None = None, workers: int = 4,
            retry_failed: bool = False, fresh: bool = False) -> dict[str, Any]:
    """Download every candidate URL once; returns counts per outcome for the manifest."""
    settings = settings or DownloadSettings()
    work.start("collect", {"per_query": per_query}, fresh=fresh)
    candidates = list(urls)
    if queries:
        if provider is None:
            raise ValueError("queries were given without a search provider")
        candidates += search_urls(work, queries, provider, per_query)
    log = work.log("collect", "downloads.jsonl")
    rows = {row["url"]: row for row in log.rows()}
    by_norm = {normalize_url(url): url for url, row in rows.items()
               if not (retry_failed and _is_transient(row))}
    by_hash = {row["sha256"]: row["url"] for row in rows.values() if row["status"] == "ok"}
    todo: list[str] = []
    with log.writer() as writer:
        for url in dict.fromkeys(candidates):
            if url in rows and not (retry_failed and _is_transient(rows[url])):
                continue
            norm = normalize_url(url)
            first = by_norm.setdefault(norm, url)
            if first != url:
                rows[url] = {"url": url, "status": "duplicate_url", "duplicate_of": first}
                writer.write(rows[url])
                continue
            todo.append(url)
        _download_all(work, todo, settings, workers, writer, rows, by_hash)
    counts = Counter(row["status"] for row in rows.values())
    summary = {"urls": len(rows), "outcomes": dict(sorted(counts.items())),
               "files": counts.get("ok", 0), "newly_attempted": len(todo),
               "settings": asdict(settings)}
    work.mark_done("collect", summary)
    return summary


def require_files(work: CorpusWork, summary: dict[str, Any]) -> dict[str, Any]:
    """``summary`` when the collect kept at least one file, else an
    :class:`EmptyResultError` naming the commonest outcomes (an empty collect is no success)."""
    if summary["files"]:
        return summary
    log = work.log("collect", "downloads.jsonl")
    raise EmptyResultError(_nothing_collected({row["url"]: row for row in log.rows()},
                                              log.path))


def _nothing_collected(rows: dict[str, dict[str, Any]], log_path: Path, top: int = 5) -> str:
    """The error of a collect that kept no file: the commonest outcomes, each with a URL."""
    if not rows:
        return ("collect: no URL to download (the URL list is empty and the searches found "
                "nothing); give --urls FILE with one PDF URL a line")
    counts = Counter(row["status"] for row in rows.values())
    lines = []
    for status, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]:
        example = next(row for row in rows.values() if row["status"] == status)
        detail = f" ({example['detail']})" if example.get("detail") else ""
        lines.append(f"{count} x {status}, e.g. {example['url']}{detail}")
    return (f"collect: none of {len(rows)} URLs gave a PDF; top reasons: " + "; ".join(lines)
            + f". Fix the URLs (or pass --allow-private for an intranet, --retry-failed for "
            f"timeouts); every outcome is in {log_path}")


def _download_all(work: CorpusWork, urls: list[str], settings: DownloadSettings, workers: int,
                  writer: Any, rows: dict[str, dict[str, Any]], by_hash: dict[str, str]) -> None:
    """Download with a bounded thread pool; each outcome is settled and logged as soon as it
    finishes (a stalled download never holds back the rows of finished ones; of two
    identical files the first to finish is kept)."""
    files = work.files_dir
    files.mkdir(parents=True, exist_ok=True)
    for stale in files.glob("*.part"):  # left by a killed run; its URL has no row yet
        stale.unlink(missing_ok=True)
    pending_urls = iter(urls)
    with make_client(settings) as client, ThreadPoolExecutor(max(1, workers)) as pool:
        running: set[Future[Outcome]] = set()

        def submit_next() -> None:
            url = next(pending_urls, None)
            if url is not None:
                running.add(pool.submit(download, client, url, settings, files))

        for _ in range(max(1, workers)):
            submit_next()
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                running.discard(future)
                row = _settle(future.result(), files, by_hash)
                rows[row["url"]] = row
                writer.write(row)
                submit_next()


def _settle(outcome: Outcome, files: Path, by_hash: dict[str, str]) -> dict[str, Any]:
    """Keep a new file under its content hash, or drop a duplicate; returns the log row."""
    row = {key: redact(value) if key in ("detail", "final_url") else value
           for key, value in asdict(outcome).items()
           if value not in (None, "", {}) and key != "temp_path"}
    if outcome.status != "ok" or outcome.temp_path is None:
        return row
    assert outcome.sha256 is not None
    first = by_hash.get(outcome.sha256)
    if first is not None:
        Path(outcome.temp_path).unlink(missing_ok=True)
        return {**row, "status": "duplicate_content", "duplicate_of": first}
    name = f"{outcome.sha256[:16]}.pdf"
    os.replace(outcome.temp_path, files / name)
    by_hash[outcome.sha256] = outcome.url
    return {**row, "file": name}


def url_of_files(work: CorpusWork) -> dict[str, str]:
    """File name -> the URL it was downloaded from (for provenance in later stages)."""
    return {row["file"]: row["url"] for row in work.log("collect", "downloads.jsonl").rows()
            if row.get("status") == "ok" and "file" in row}
