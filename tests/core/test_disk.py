"""A full disk and the umask, through the real CLI in real processes.

The disk is a real 256 KiB tmpfs mounted in a private mount namespace (``unshare -rm``); where
the machine cannot make one, the same run gets ENOSPC from every ``os.fsync`` instead (the
write boundary's last step; a ``sitecustomize`` in the child), which is documented in
docs/failures.md. Either way: one line naming the path and the space to free, exit 7, no
traceback, no temporary file and no torn row left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENOSPC_ON_FSYNC = """
import errno, os
def _full(fd):
    raise OSError(errno.ENOSPC, "No space left on device")
os.fsync = _full
"""


def _docs(tmp_path: Path, count: int = 40) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for number in range(count):
        body = " ".join(f"Gauge {number} read {n} metres at the bridge on day {n}."
                        for n in range(120))
        (docs / f"report{number}.txt").write_text(f"Report {number}\n\n{body}\n",
                                                  encoding="utf-8")
    return docs


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs "
                            "/mnt"], capture_output=True, timeout=30)
    return probe.returncode == 0


def _corpus_build_on_a_full_disk(tmp_path: Path) -> tuple[subprocess.CompletedProcess, Path]:
    _docs(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    disk = tmp_path / "disk"
    disk.mkdir()
    bench = disk / "bench"
    build = [sys.executable, "-m", "irforge", "corpus", "build", str(bench), "--input",
             str(tmp_path / "docs"), "--skip-passage-dedup", "--tokenizer", "words"]
    if _can_mount_tmpfs():
        keep = tmp_path / "kept"  # the tmpfs vanishes with the namespace: copy what it held
        script = (f"mount -t tmpfs -o size=256k tmpfs {disk} && "
                  f"{' '.join(map(repr, build))}; code=$?; cp -a {disk}/. {keep}/; exit $code")
        keep.mkdir()
        done = subprocess.run(["unshare", "-rm", "sh", "-c", script], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        return done, keep / "bench"
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(ENOSPC_ON_FSYNC, encoding="utf-8")
    env["PYTHONPATH"] = f"{site}{os.pathsep}{ROOT}"
    done = subprocess.run(build, env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    return done, bench


def test_a_full_disk_is_one_line_naming_the_path_and_the_space_to_free(tmp_path: Path) -> None:
    done, bench = _corpus_build_on_a_full_disk(tmp_path)
    assert done.returncode == 7, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stderr
    assert "disk full while writing" in errors[0] and str(bench.name) in errors[0]
    assert "free at least" in errors[0]
    assert not list(bench.rglob("*.tmp")), "no temporary file is left behind"
    for log in bench.rglob("*.jsonl"):  # every row that was written is whole
        for line in log.read_text(encoding="utf-8").splitlines():
            json.loads(line)


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640)])
def test_written_files_honour_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    _docs(tmp_path, count=3)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "irforge", "corpus", "build", "bench",
                           "--input", "docs", "--skip-passage-dedup", "--tokenizer", "words"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=lambda: os.umask(umask))
    assert done.returncode == 0, done.stderr
    for name in ("corpus.jsonl", "manifest.json", "corpus_stats.json"):
        path = tmp_path / "bench" / name
        assert stat.S_IMODE(path.stat().st_mode) == mode, name


def test_a_stage_log_cut_by_a_full_disk_keeps_whole_rows_and_names_its_filesystem(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: ``documents.jsonl`` ended in a torn row, and the message gave another
    filesystem's free space (the error named no file)."""
    import errno
    from collections import namedtuple

    from irforge.core import disk
    from irforge.core.errors import DiskFullError

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(disk.shutil, "disk_usage", lambda path: usage(
        1, 0, 123 if Path(path).is_relative_to(tmp_path) else 77 << 30))
    from irforge.corpus.state import StageLog

    log = StageLog(tmp_path / "corpus_work" / "extract" / "documents.jsonl")
    with log.writer() as writer:
        writer.write({"file": "a.txt", "status": "ok"})
    writer = log.writer()

    class HalfThenFull:
        """A handle that writes half of what it is given, then reports a full disk."""

        def __init__(self, real: object) -> None:
            self.real = real

        def write(self, text: str) -> int:
            self.real.write(text[:len(text) // 2])
            self.real.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name: str) -> object:
            return getattr(self.real, name)

    writer._handle = HalfThenFull(writer._handle)  # type: ignore[assignment]
    with pytest.raises(DiskFullError) as full:
        writer.write({"file": "b.txt", "status": "ok", "text": "x" * 1000})
    assert log.path.read_text(encoding="utf-8") == '{"file":"a.txt","status":"ok"}\n'
    message = str(full.value)
    assert f"disk full while writing {log.path} (123 B free on its filesystem)" in message
