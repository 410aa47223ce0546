"""atomic_open outside a generation: a killed write leaves only its temporary file, and the next
write of the same file removes it (a live writer's is kept)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from irforge.core.jsonl import atomic_open, sweep_temporaries


def _dead_pid() -> int:
    process = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                             capture_output=True, text=True, check=True)
    return int(process.stdout)


def test_the_next_write_of_a_file_removes_what_a_killed_write_left(tmp_path: Path) -> None:
    dead = tmp_path / f".index.html.{_dead_pid()}.k9x2abcd.tmp"
    live = tmp_path / f".index.html.{os.getppid()}.a1b2c3d4.tmp"  # a writer still running
    other = tmp_path / f".report.md.{_dead_pid()}.q1w2e3r4.tmp"  # another file's
    for path in (dead, live, other):
        path.write_text("half a page", encoding="utf-8")
    with atomic_open(tmp_path / "index.html") as handle:
        handle.write("<p>new</p>\n")
    assert (tmp_path / "index.html").read_text(encoding="utf-8") == "<p>new</p>\n"
    assert not dead.exists() and live.exists() and other.exists()
    assert sweep_temporaries(tmp_path) == [other] and live.exists()


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "recipe.yaml"
    target.write_text("old\n", encoding="utf-8")
    try:
        with atomic_open(target) as handle:
            handle.write("half")
            raise RuntimeError("disk gone")
    except RuntimeError:
        pass
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["recipe.yaml"]
