"""``corpus collect --deadline`` bounds the whole HTTP exchange, headers included: a server that
sends one header line per half second, forever, is cut off at the deadline (real process, real
sockets on 127.0.0.1)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class HeaderTrickle:
    """Answers every connection with a status line, then one header line every ``interval``."""

    def __init__(self, interval: float = 0.5) -> None:
        self.interval = interval
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.stopped = threading.Event()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                number = 0
                while not self.stopped.is_set():
                    conn.sendall(f"X-Slow-{number}: still coming\r\n".encode())
                    number += 1
                    time.sleep(self.interval)
            except OSError:
                pass

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def __enter__(self) -> HeaderTrickle:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.sock.close()


def test_a_header_trickle_is_cut_off_at_the_deadline(tmp_path: Path) -> None:
    with HeaderTrickle() as server:
        urls = tmp_path / "urls.txt"
        urls.write_text("".join(f"http://127.0.0.1:{server.port}/{name}.pdf\n"
                                for name in ("a", "b", "c")), encoding="utf-8")
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "irforge", "corpus", "collect", "out", "--urls", str(urls),
             "--deadline", "3", "--timeout", "2", "--retries", "0", "--allow-private",
             "--download-workers", "1"],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
            text=True, timeout=120)
        took = time.monotonic() - started
    assert "Traceback" not in done.stderr, done.stderr
    assert took < 60, f"collect ran {took:.0f} s for three URLs with a 3 s deadline"
    log = tmp_path / "out" / "corpus_work" / "collect" / "downloads.jsonl"
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3
    for row in rows:
        assert row["status"] == "timeout" and row["detail"].startswith("deadline"), row
