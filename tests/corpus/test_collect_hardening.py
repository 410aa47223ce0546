"""Collect refuses what it must not fetch, cuts off trickling servers, logs each download as it
finishes (kill -9 mid-run), and reads bad URL/query files without a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.errors import FormatError
from irforge.corpus.collect import collect
from irforge.corpus.download import DownloadSettings, refusal
from irforge.corpus.search import read_queries, read_url_list
from irforge.corpus.state import CorpusWork

ROOT = Path(__file__).resolve().parents[2]
FAST = DownloadSettings(read_timeout_s=2, connect_timeout_s=0.5, retries=2, backoff_s=0.01)


def _rows(work: CorpusWork) -> dict[str, dict]:
    return {row["url"]: row for row in work.log("collect", "downloads.jsonl").rows()}


def test_private_targets_schemes_and_cross_port_redirects_are_refused(server,
                                                                      tmp_path: Path) -> None:
    server.pdf("/doc.pdf", "Flood bulletin")
    server.raw("/same", 302, "text/html", b"", headers={"Location": "/doc.pdf"})
    with __import__("http_fixture").PdfServer() as other:
        other.pdf("/secret.pdf", "Internal only")
        server.raw("/jump", 302, "text/html", b"",
                   headers={"Location": other.url("/secret.pdf")})
        urls = [server.url("/doc.pdf"), "ftp://127.0.0.1/x.pdf", server.url("/jump"),
                server.url("/same")]
        strict = collect(CorpusWork(tmp_path / "strict"), urls, settings=FAST)
        assert strict["outcomes"] == {"refused": 4}
        rows = _rows(CorpusWork(tmp_path / "strict"))
        assert "--allow-private" in rows[urls[0]]["detail"]
        assert "scheme 'ftp'" in rows[urls[1]]["detail"] and rows[urls[1]]["attempts"] == 0
        assert sum(server.requests.values()) == 0  # refused before any request

        work = CorpusWork(tmp_path / "open")
        collect(work, urls, settings=DownloadSettings(**{**FAST.__dict__,
                                                         "allow_private": True}))
        rows = _rows(work)
        assert rows[urls[0]]["status"] == "ok"
        assert rows[urls[1]]["status"] == "refused"
        assert rows[urls[2]]["status"] == "refused" and "another private" in rows[urls[2]][
            "detail"]
        assert other.requests["/secret.pdf"] == 0  # B's file never fetched
        assert rows[urls[3]]["status"] == "duplicate_content"  # same-origin redirect is fine
    assert refusal("http://169.254.169.254/latest", False) is not None
    assert refusal("http://10.1.2.3/a.pdf", False) is not None
    assert refusal("http://[::1]:8/a.pdf", False) is not None
    assert refusal("http://8.8.8.8/a.pdf", False) is None


def test_a_trickling_server_is_cut_off_by_the_total_deadline(server, tmp_path: Path) -> None:
    server.trickle("/drip.pdf", b"%PDF-1.4\n" + b"0" * 1000, interval=0.2)
    settings = DownloadSettings(**{**FAST.__dict__, "allow_private": True,
                                   "total_timeout_s": 1.5})
    started = time.monotonic()
    collect(CorpusWork(tmp_path / "w"), [server.url("/drip.pdf")], settings=settings)
    took = time.monotonic() - started
    row = _rows(CorpusWork(tmp_path / "w"))[server.url("/drip.pdf")]
    assert row["status"] == "timeout" and row["detail"].startswith("deadline")
    assert row["attempts"] == 1 and took < 10  # not retried past the deadline


def test_finished_downloads_are_logged_while_one_stalls_then_kill_9(server,
                                                                  tmp_path: Path) -> None:
    server.trickle("/stall.pdf", b"%PDF-1.4\n" + b"0" * 10_000, interval=1.0)
    fast = [f"/f{i}.pdf" for i in range(3)]
    for number, path in enumerate(fast):
        server.pdf(path, f"Situation report {number}")
    url_file = tmp_path / "urls.txt"
    url_file.write_text("\n".join(server.url(p) for p in ["/stall.pdf", *fast]) + "\n",
                        encoding="utf-8")
    out = tmp_path / "bench"
    log = out / "corpus_work" / "collect" / "downloads.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "irforge", "corpus", "collect", str(out), "--urls", str(url_file),
         "--download-workers", "2", "--allow-private"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and process.poll() is None:
        if log.exists() and log.read_text(encoding="utf-8").count("\n") >= 3:
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGKILL)
    process.wait()
    rows = _rows(CorpusWork(out / "corpus_work"))
    assert {server.url(p) for p in fast} <= set(rows)  # logged behind the stalled first URL
    assert server.url("/stall.pdf") not in rows


def test_bad_url_and_query_files_give_messages_not_tracebacks(tmp_path: Path) -> None:
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfhttp://example.org/a.pdf\n")
    assert read_url_list(bom) == ["http://example.org/a.pdf"]
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"http://example.org/a.pdf\nflood caf\xe9\n")
    for reader in (read_url_list, read_queries):
        with pytest.raises(FormatError, match=r"latin.txt:2: not valid UTF-8"):
            reader(latin)
    result = CliRunner().invoke(build_app(), ["corpus", "collect", str(tmp_path / "b"),
                                              "--queries", str(latin)])
    assert isinstance(result.exception, FormatError) and "latin.txt:2" in str(result.exception)
