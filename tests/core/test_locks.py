"""One writer per benchmark folder, and ``check`` catches what concurrent writers leave behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irforge.check.folder import check_benchmark
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.errors import InUseError
from irforge.core.locks import FolderLock
from irforge.core.records import Doc, Judgment, Qrel, Query

ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import sys, time
from irforge.core.locks import FolderLock
with FolderLock(sys.argv[1]):
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def hold(folder: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the folder's writer lock for ``seconds``."""
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), str(seconds)],
                               stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout is not None and process.stdout.readline().strip() == "locked"
    return process


def test_a_second_writer_is_told_who_holds_the_folder_or_waits(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    holder = hold(bench.root, 30)
    try:
        with pytest.raises(InUseError, match=f"in use by pid {holder.pid}") as caught:
            bench.add_judgments([Judgment("q1", "d1", 1.0, "llm")])
        assert caught.value.exit_code == 6
        assert not bench.judgments_path.exists()  # nothing written past the lock
    finally:
        holder.send_signal(signal.SIGKILL)  # kill -9: the OS drops the lock, none goes stale
        holder.wait()
    assert bench.add_judgments([Judgment("q1", "d1", 1.0, "llm")]) == 1
    short = hold(bench.root, 1.0)
    started = time.monotonic()
    with FolderLock(bench.root, wait_s=30):  # waits for the holder instead of failing
        waited = time.monotonic() - started
    assert waited >= 0.5
    assert short.wait(timeout=30) == 0


def test_check_reports_duplicate_judgments_and_an_empty_corpus(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus([])
    bench.write_queries([Query("q1", "flood level?")])
    bench.write_qrels([Qrel("q1", "d1", 1), Qrel("q1", "d2", 1)])
    row = Judgment("q1", "d1", 1.0, "llm", prompt_id="p", model="m")
    beir.append_judgments(bench.judgments_path, [row, row])  # two runs appending at once
    report = check_benchmark(bench.root)
    text = [str(problem) for problem in report.problems]
    assert not report.ok
    assert any("judgments.jsonl:2" in t and "duplicate of line 1" in t for t in text)
    assert any("corpus.jsonl" in t and "no documents" in t for t in text)
    assert sum("unknown document" in t for t in text) == 2
    bench.write_corpus([Doc("d1", "The flood level at the bridge gauge rose overnight."),
                        Doc("d2", "A flood level above the bank closes the road.")])
    bench.judgments_path.unlink()
    beir.append_judgments(bench.judgments_path, [row])
    assert check_benchmark(bench.root).ok


def test_cache_clear_is_refused_while_another_verb_writes_the_folder(
        tmp_path: Path) -> None:
    """Issue 37: ``cache clear`` deleted a folder's cache under a verb holding its lock."""
    from irforge.llm.cache import ResponseCache

    bench = tmp_path / "bench"
    with ResponseCache(bench / ".irforge" / "cache.sqlite"):
        pass
    holder = hold(bench, 30)
    try:
        done = subprocess.run([sys.executable, "-m", "irforge", "cache", "clear", "--bench",
                               str(bench), "--yes"], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert done.returncode == 6 and f"in use by pid {holder.pid}" in done.stderr + done.stdout
