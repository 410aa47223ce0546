"""A small threaded HTTP server on 127.0.0.1 that serves PDFs and misbehaves on purpose."""

from __future__ import annotations

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pdfs


def pdf_bytes(text: str, folder: Path) -> bytes:
    """A real one-page PDF saying ``text`` (reportlab)."""
    from reportlab.pdfgen import canvas

    path = folder / f"{abs(hash(text))}.pdf"
    pdf = canvas.Canvas(str(path), invariant=1)
    pdf.drawString(72, 720, text)
    pdf.save()
    return path.read_bytes()


class PdfServer:
    """Routes: path -> (status, content type, body, delay s, extra headers); counts requests."""

    def __init__(self) -> None:
        import tempfile

        self._tmp = Path(tempfile.mkdtemp(prefix="pdfserver-"))
        self.routes: dict[str, dict[str, Any]] = {}
        self.requests: Counter[str] = Counter()
        self.flaky_left: Counter[str] = Counter()
        self.lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def pdf(self, path: str, text: str, delay: float = 0.0, content_type: str = "application/pdf"
            ) -> None:
        self.routes[path] = {"status": 200, "type": content_type,
                             "body": pdf_bytes(text, self._tmp), "delay": delay}

    def raw(self, path: str, status: int, content_type: str, body: bytes, delay: float = 0.0,
            headers: dict[str, str] | None = None) -> None:
        self.routes[path] = {"status": status, "type": content_type, "body": body,
                             "delay": delay, "headers": headers or {}}

    def trickle(self, path: str, body: bytes, interval: float = 1.0) -> None:
        """Serve ``body`` one byte every ``interval`` seconds (a stalled download)."""
        self.routes[path] = {"status": 200, "type": "application/pdf", "body": body,
                             "delay": 0, "trickle": interval}

    def flaky(self, path: str, failures: int) -> None:
        """Answer 503 to the first ``failures`` requests of ``path``."""
        self.flaky_left[path] = failures

    def url(self, path: str) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{path}"

    def __enter__(self) -> PdfServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with server.lock:
                    server.requests[self.path] += 1
                    flaky = server.flaky_left[self.path] > 0
                    if flaky:
                        server.flaky_left[self.path] -= 1
                route = server.routes.get(self.path)
                if flaky:
                    route = {"status": 503, "type": "text/plain", "body": b"busy", "delay": 0}
                if route is None:
                    route = {"status": 404, "type": "text/html", "body": b"<h1>nope</h1>",
                             "delay": 0}
                time.sleep(route.get("delay", 0))
                try:
                    self.send_response(route["status"])
                    self.send_header("Content-Type", route["type"])
                    self.send_header("Content-Length", str(len(route["body"])))
                    for key, value in route.get("headers", {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    if route.get("trickle"):
                        for byte in route["body"]:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(route["trickle"])
                        return
                    self.wfile.write(route["body"])
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()


__all__ = ["PdfServer", "pdf_bytes", "pdfs"]
