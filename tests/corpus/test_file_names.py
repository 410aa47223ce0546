"""File and folder names of any bytes: read, stored reversibly, printed, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from irforge.data.sample import write_seed_benchmark

ROOT = Path(__file__).resolve().parents[2]
RAW = b"caf\xe9 notes.txt"  # Latin-1 bytes: not UTF-8, so the name holds a lone surrogate
TEXT = ("Flood notes\n\nThe gauge at the old mill is read every hour once the river passes "
        "the second mark, and the volunteers open the sandbag store beside the chapel.\n")


def _irforge(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "irforge", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, errors="replace", timeout=300)


def test_a_non_utf8_file_name_builds_on_every_run_and_reads_back(tmp_path: Path) -> None:
    """Issue 37: ``corpus build`` crashed on every re-run (surrogates not allowed)."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / os.fsdecode(RAW)).write_text(TEXT, encoding="utf-8")
    for _ in range(2):  # the second run resumes from corpus_work/
        done = _irforge("corpus", "build", "bench", "--input", "in", "--skip-passage-dedup",
                        "--tokenizer", "words", cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
    rows = [json.loads(line) for line in
            (tmp_path / "bench" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows and "gauge at the old mill" in rows[0]["text"]
    stored = json.dumps(rows[0]["metadata"], ensure_ascii=False)
    assert "\\udce9" in (tmp_path / "bench" / "corpus.jsonl").read_text(encoding="utf-8")
    names = [value for value in rows[0]["metadata"].values()
             if isinstance(value, str) and "notes.txt" in value]
    assert any(os.fsencode(name).endswith(RAW) for name in names), stored  # the same bytes


def test_eval_and_view_on_a_folder_named_with_any_bytes(tmp_path: Path) -> None:
    """Issue 37: both crashed (eval after writing its runs, before its report)."""
    name = os.fsdecode(b"bench-\xff")
    write_seed_benchmark(tmp_path / name)
    done = _irforge("eval", name, "--retriever", "bm25", "--no-plots", "--bootstrap", "50",
                    "--trials", "50", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / name / "eval" / "report.md").is_file()
    shown = _irforge("view", name, cwd=tmp_path)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert (tmp_path / name / "view" / "index.html").is_file()
