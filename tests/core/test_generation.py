"""A generation commits every write of one command together: old files or new files, never a mix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from irforge.core.errors import BudgetStopped, DiskFullError, EmptyResultError
from irforge.core.generation import JOURNAL, generation, remove, rollback
from irforge.core.jsonl import append_jsonl, write_json, write_jsonl

ROOT = Path(__file__).resolve().parents[2]


def _files(folder: Path) -> dict[str, bytes]:
    """Every file of ``folder`` but the journal, by relative path."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*"))
            if path.is_file() and ".irforge" not in path.relative_to(folder).parts}


def _before(folder: Path) -> dict[str, bytes]:
    write_jsonl(folder / "queries.jsonl", [{"_id": "q1", "text": "old"}])
    append_jsonl(folder / "failures.jsonl", [{"step": "old", "item_id": "1"}])
    write_json(folder / "manifest.json", {"steps": {"old": {}}})
    (folder / "keep.txt").write_text("untouched\n", encoding="utf-8")
    return _files(folder)


def _write_new(folder: Path) -> None:
    write_jsonl(folder / "queries.jsonl", [{"_id": "q2", "text": "new"}])
    write_jsonl(folder / "qrels" / "test.jsonl", [{"q": "q2"}])
    append_jsonl(folder / "failures.jsonl", [{"step": "new", "item_id": "2"}])
    write_json(folder / "manifest.json", {"steps": {"new": {}}})
    remove(folder / "keep.txt")


def test_a_finished_generation_keeps_every_write_and_no_journal(tmp_path: Path) -> None:
    _before(tmp_path)
    with generation(tmp_path):
        _write_new(tmp_path)
    files = _files(tmp_path)
    assert b"new" in files["queries.jsonl"] and "keep.txt" not in files
    assert files["failures.jsonl"].count(b"\n") == 2
    assert not (tmp_path / JOURNAL).exists()


@pytest.mark.parametrize("error", [RuntimeError("crash"), KeyboardInterrupt(),
                                   DiskFullError("disk full")])
def test_a_failed_generation_puts_the_previous_files_back(tmp_path: Path,
                                                          error: BaseException) -> None:
    before = _before(tmp_path)
    with pytest.raises(type(error)), generation(tmp_path):
        _write_new(tmp_path)
        raise error
    assert _files(tmp_path) == before
    assert not (tmp_path / "qrels").exists()  # a folder the generation made goes too


def test_a_build_that_keeps_nothing_keeps_only_its_logs(tmp_path: Path) -> None:
    before = _before(tmp_path)
    with pytest.raises(EmptyResultError), generation(tmp_path):
        _write_new(tmp_path)
        raise EmptyResultError("kept nothing")
    after = _files(tmp_path)
    assert after["queries.jsonl"] == before["queries.jsonl"]
    assert after["keep.txt"] == before["keep.txt"]
    assert b'"new"' in after["failures.jsonl"] and b"new" in after["manifest.json"]


def test_a_budget_stop_commits_what_it_wrote(tmp_path: Path) -> None:
    _before(tmp_path)
    with pytest.raises(BudgetStopped), generation(tmp_path):
        _write_new(tmp_path)
        raise BudgetStopped("budget")
    assert b"new" in _files(tmp_path)["queries.jsonl"]


def test_an_inner_generation_joins_the_outer_one(tmp_path: Path) -> None:
    before = _before(tmp_path)
    with pytest.raises(RuntimeError), generation(tmp_path):
        with generation(tmp_path / "qrels"):
            _write_new(tmp_path)
        raise RuntimeError("later crash")
    assert _files(tmp_path) == before


WRITER = """
import sys
from pathlib import Path
from irforge.core.generation import generation, remove
from irforge.core.jsonl import append_jsonl, write_json, write_jsonl
folder = Path(sys.argv[1])
with generation(folder):
    write_jsonl(folder / "queries.jsonl", [{"_id": "q2", "text": "new"}])
    write_jsonl(folder / "qrels" / "test.jsonl", [{"q": "q2"}])
    append_jsonl(folder / "failures.jsonl", [{"step": "new", "item_id": "2"}] * 3)
    write_json(folder / "manifest.json", {"steps": {"new": {}}})
    remove(folder / "keep.txt")
"""


def _run_writer(folder: Path, kill_at: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IRFORGE_KILL_AT_WRITE": kill_at}
    return subprocess.run([sys.executable, "-c", WRITER, str(folder)], env=env,
                          capture_output=True, text=True, timeout=60)


def test_a_kill_at_every_write_leaves_the_old_files_once_recovered(tmp_path: Path) -> None:
    """SIGKILL at each write (a rename, a half-written append, a removal): the next command's
    recovery (``rollback``) gives back exactly the files from before, torn row and all."""
    clean = tmp_path / "clean"
    clean.mkdir()
    _before(clean)
    counted = _run_writer(clean, "count")
    assert counted.returncode == 0, counted.stderr
    writes = int(counted.stderr.rsplit("irforge-write-points:", 1)[1])
    assert writes == 5
    new = _files(clean)
    for kill_at in range(1, writes + 1):
        folder = tmp_path / f"kill{kill_at}"
        folder.mkdir()
        before = _before(folder)
        killed = _run_writer(folder, str(kill_at))
        assert killed.returncode == -9, (kill_at, killed.stderr)
        assert _files(folder) != before  # the kill left a half-done state
        assert rollback(folder) is True
        assert _files(folder) == before, f"kill at write {kill_at}"
        assert not (folder / JOURNAL).exists()
        rerun = _run_writer(folder, "")
        assert rerun.returncode == 0 and _files(folder) == new
