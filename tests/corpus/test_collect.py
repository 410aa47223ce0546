from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irforge.core.errors import FormatError
from irforge.corpus.collect import collect
from irforge.corpus.download import DownloadSettings, normalize_url
from irforge.corpus.search import GoogleSearch, read_url_list
from irforge.corpus.state import CorpusWork

ROOT = Path(__file__).resolve().parents[2]
FAST = DownloadSettings(read_timeout_s=0.5, connect_timeout_s=0.5, retries=1, backoff_s=0.01,
                        max_bytes=200_000, allow_private=True)  # the test server is local


def _outcomes(work: CorpusWork) -> dict[str, dict]:
    return {row["url"]: row for row in work.log("collect", "downloads.jsonl").rows()}


def test_collect_records_one_outcome_per_url(server, tmp_path: Path) -> None:
    server.pdf("/guide.pdf", "Household flood guide")
    server.pdf("/copy.pdf", "Household flood guide")  # same bytes under another URL
    server.pdf("/other.pdf", "Earthquake drill checklist")
    server.pdf("/octet.pdf", "Heatwave plan", content_type="application/octet-stream")
    server.raw("/moved", 302, "text/html", b"", headers={"Location": "/other.pdf"})
    server.raw("/page.html", 200, "text/html; charset=utf-8", b"<html>not a pdf</html>")
    server.raw("/liar.pdf", 200, "application/pdf", b"<html>an error page</html>")
    server.raw("/huge.pdf", 200, "application/pdf", b"%PDF-1.4\n" + b"0" * 300_000)
    server.pdf("/slow.pdf", "Too slow to matter", delay=2.0)
    server.pdf("/flaky.pdf", "Wildfire smoke advice")
    server.flaky("/flaky.pdf", 1)
    urls = [server.url(p) for p in ("/guide.pdf", "/copy.pdf", "/other.pdf", "/octet.pdf",
                                    "/moved", "/page.html", "/liar.pdf", "/huge.pdf",
                                    "/slow.pdf", "/flaky.pdf", "/missing.pdf")]
    urls += [server.url("/guide.pdf"), server.url("/guide.pdf") + "#page=2"]
    work = CorpusWork(tmp_path / "work")

    summary = collect(work, urls, settings=FAST, workers=3)

    rows = _outcomes(work)
    status = {url.rsplit("/", 1)[-1]: rows[url]["status"] for url in rows}
    # of two identical files the first to finish is kept (rows are logged as downloads end)
    assert sorted([status["guide.pdf"], status["copy.pdf"]]) == ["duplicate_content", "ok"]
    assert sorted([status["other.pdf"], status["moved"]]) == ["duplicate_content", "ok"]
    assert status["octet.pdf"] == "ok"
    assert status["flaky.pdf"] == "ok" and rows[server.url("/flaky.pdf")]["attempts"] == 2
    assert status["page.html"] == "not_pdf" and status["liar.pdf"] == "not_pdf"
    assert status["huge.pdf"] == "too_large"
    assert status["slow.pdf"] == "timeout"
    assert status["missing.pdf"] == "http_error"
    assert rows[server.url("/missing.pdf")]["http_status"] == 404
    assert status["guide.pdf#page=2"] == "duplicate_url"
    assert rows[server.url("/moved")]["final_url"].endswith("/other.pdf")
    assert summary["files"] == 4
    assert sorted(p.suffix for p in work.files_dir.iterdir()) == [".pdf"] * 4
    assert server.requests["/guide.pdf"] == 1  # the repeated URL was never fetched twice
    assert server.requests["/slow.pdf"] == 2  # one retry after the timeout


def test_rerun_skips_finished_urls_and_retry_failed_retries_transient_ones(server, tmp_path):
    server.pdf("/a.pdf", "Evacuation routes for the harbour district")
    server.pdf("/slow.pdf", "Slow but fine", delay=2.0)
    work = CorpusWork(tmp_path / "work")
    urls = [server.url("/a.pdf"), server.url("/slow.pdf")]
    collect(work, urls, settings=FAST, workers=1)
    assert _outcomes(work)[urls[1]]["status"] == "timeout"

    again = collect(work, urls, settings=FAST, workers=1)
    assert again["newly_attempted"] == 0
    assert server.requests["/a.pdf"] == 1

    server.routes["/slow.pdf"]["delay"] = 0.0
    retried = collect(work, urls, settings=FAST, workers=1, retry_failed=True)
    assert retried["newly_attempted"] == 1
    assert _outcomes(work)[urls[1]]["status"] == "ok"
    assert server.requests["/a.pdf"] == 1


def test_killed_collect_resumes_without_downloading_again(server, tmp_path: Path) -> None:
    paths = [f"/doc{i}.pdf" for i in range(8)]
    for number, path in enumerate(paths):
        server.pdf(path, f"Situation report number {number} for the river basin", delay=0.4)
    url_file = tmp_path / "urls.txt"
    url_file.write_text("\n".join(server.url(p) for p in paths) + "\n", encoding="utf-8")
    out = tmp_path / "bench"
    command = [sys.executable, "-m", "irforge", "corpus", "collect", str(out), "--urls",
               str(url_file), "--download-workers", "1", "--allow-private"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = out / "corpus_work" / "collect" / "downloads.jsonl"
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if log.exists() and log.read_text(encoding="utf-8").count("\n") >= 3:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    finished_before = [row["url"] for row in CorpusWork(out / "corpus_work")
                       .log("collect", "downloads.jsonl").rows()]
    assert 3 <= len(finished_before) < len(paths), "the kill should land mid-run"

    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr

    rows = _outcomes(CorpusWork(out / "corpus_work"))
    assert [rows[server.url(p)]["status"] for p in paths] == ["ok"] * len(paths)
    for url in finished_before:
        path = "/" + url.rsplit("/", 1)[-1]
        assert server.requests[path] == 1, f"{path} was downloaded again after the kill"
    # at most the one download in flight at the kill is fetched twice
    assert sum(server.requests.values()) <= len(paths) + 1
    manifest = (out / "manifest.json").read_text(encoding="utf-8")
    assert '"corpus.collect"' in manifest


def test_normalize_url_drops_fragments_default_ports_and_case() -> None:
    assert normalize_url("HTTP://Example.org:80/a.pdf#p=2") == "http://example.org/a.pdf"
    assert normalize_url("https://example.org:8443/a.pdf?x=1") == \
        "https://example.org:8443/a.pdf?x=1"


def test_url_list_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "urls.txt"
    path.write_text("# comment\nhttps://ok.example/a.pdf\n\nftp://bad.example/b.pdf\n")
    with pytest.raises(FormatError) as caught:
        read_url_list(path)
    assert caught.value.problem.line == 4
    path.write_text("https://ok.example/a.pdf\n")
    assert read_url_list(path) == ["https://ok.example/a.pdf"]


class _RateLimited(Exception):
    def __init__(self) -> None:
        super().__init__("429 Client Error: Too Many Requests")


def test_google_provider_pauses_and_backs_off_on_429(monkeypatch) -> None:
    import googlesearch

    calls: list[str] = []

    def fake_search(term, num_results, unique, sleep_interval):
        calls.append(term)
        if len(calls) <= 2:
            raise _RateLimited()
        return iter(["https://a.example/x.pdf"])

    waits: list[float] = []
    monkeypatch.setattr(googlesearch, "search", fake_search)
    provider = GoogleSearch(pause_s=0.0, backoff_s=10.0, sleep=waits.append)
    assert provider.search("flash flood", 5) == ["https://a.example/x.pdf"]
    assert calls == ["flash flood filetype:pdf"] * 3
    assert len(waits) == 2 and 10.0 <= waits[0] <= 12.5 and 20.0 <= waits[1] <= 25.0
