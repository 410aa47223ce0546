"""A real Label Studio server: 127.0.0.1, a free port, a fresh data folder.

The binary comes from IRFORGE_LABEL_STUDIO_BIN (set by `make test`), else the
`.venv-labelstudio/` that `make test` creates in the checkout. Creating the database takes
~50 s, so a template data folder is built once per binary (cached in the temp folder) and
copied for each server; the server then starts in a few seconds. It is stopped by its pid
and its data folder removed when the block ends (a session fixture, or a test module's).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

# the environment `make test` installs the server into, relative to this checkout
ROOT = Path(__file__).resolve().parents[1]
FALLBACK_BINARY = ROOT / ".venv-labelstudio" / "bin" / "label-studio"
START_TIMEOUT_S = 240
QUIET_ENV = {"LATEST_VERSION_CHECK": "false", "COLLECT_ANALYTICS": "false", "SENTRY_DSN": "",
             "FRONTEND_SENTRY_DSN": "", "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true"}


@dataclass(frozen=True)
class LabelStudioServer:
    url: str
    token: str
    pid: int
    data_dir: Path
    admin_email: str
    admin_password: str = ""  # for logging in from a browser


def _binary() -> Path:
    binary = Path(os.environ.get("IRFORGE_LABEL_STUDIO_BIN") or FALLBACK_BINARY)
    if not binary.is_file():
        pytest.fail(f"Label Studio server not found at {binary}: the annotation tests need a "
                    f"real server. Run `make test` (it installs label-studio==1.23.2 into "
                    f".venv-labelstudio) or set IRFORGE_LABEL_STUDIO_BIN to a label-studio "
                    f"executable.", pytrace=False)
    return binary


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _template(binary: Path) -> Path:
    """A data folder with the tables created, built once per binary and reused."""
    identity = f"{binary.resolve()}:{binary.resolve().stat().st_mtime_ns}"  # new install, new one
    tag = hashlib.sha256(identity.encode()).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / f"irforge-ls-template-{tag}"
    lock_path = cache.with_suffix(".lock")
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (cache / "label_studio.sqlite3").is_file():
            building = cache.with_name(cache.name + f".building-{os.getpid()}")
            shutil.rmtree(building, ignore_errors=True)
            env = {**os.environ, **QUIET_ENV, "LABEL_STUDIO_BASE_DATA_DIR": str(building)}
            subprocess.run([str(binary), "version"], env=env, check=True, timeout=600,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(cache, ignore_errors=True)
            building.rename(cache)
    return cache


def _wait_healthy(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"Label Studio exited with code {process.returncode}:\n"
                        f"{log.read_text(errors='replace')[-3000:]}", pytrace=False)
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                if b"UP" in response.read():
                    return
        except OSError:
            pass
        time.sleep(1.0)
    process.terminate()
    pytest.fail(f"Label Studio did not become healthy in {START_TIMEOUT_S} s:\n"
                f"{log.read_text(errors='replace')[-3000:]}", pytrace=False)


@contextmanager
def started_label_studio() -> Iterator[LabelStudioServer]:
    """A fresh Label Studio on 127.0.0.1 (a free port), stopped by its pid at the end."""
    binary = _binary()
    template = _template(binary)
    root = Path(tempfile.mkdtemp(prefix="irforge-ls-"))
    data_dir = root / "data"
    shutil.copytree(template, data_dir)
    port, token, password = _free_port(), secrets.token_hex(20), secrets.token_hex(8)
    email = "admin@example.com"
    env = {**os.environ, **QUIET_ENV, "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
           "LABEL_STUDIO_USERNAME": email, "LABEL_STUDIO_PASSWORD": password,
           "LABEL_STUDIO_USER_TOKEN": token, "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true"}
    log = root / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(binary), "start", "--no-browser", "--internal-host", "127.0.0.1",
             "--port", str(port)], env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process, log)
        yield LabelStudioServer(url, token, process.pid, data_dir, email, password)
    finally:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)
