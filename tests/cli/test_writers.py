"""Every writing verb takes its folder's writer lock before it writes anything, through the
real CLI in real processes: a second writer is refused at once (exit 6, naming the pid) and
leaves the folder untouched; a file where the folder belongs is a one-line error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irforge.cli.app import COMMANDS
from irforge.cli.writers import WRITERS
from tests.core.test_locks import hold

ROOT = Path(__file__).resolve().parents[2]


def irforge(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "irforge", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for number in range(6):
        (docs / f"doc{number}.txt").write_text(
            f"Document {number}\n\nRiver levels rose by {number} metres during the storm. "
            f"Crews opened shelter number {number} near the bridge for the night.\n",
            encoding="utf-8")
    return docs


def _recipe(tmp_path: Path, api_base: str = "http://127.0.0.1:9/v1") -> Path:
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(f"""corpus: {{input: docs, passage_dedup: false}}
model: openai/scripted
api_base: {api_base}
methods:
  intents: {{intents: [QA], per_task: 1}}
pool: {{retrievers: [bm25], k: 3}}
label: {{strategies: [zero_shot]}}
eval: {{retrievers: [bm25], metrics: [ndcg@10]}}
""", encoding="utf-8")
    return recipe


def test_every_registered_writer_names_a_real_verb_and_parameter() -> None:
    import inspect

    from irforge.cli.app import _resolve

    targets = {(group, name): target for group, name, target in COMMANDS}
    for key, writes in WRITERS.items():
        assert key in targets, f"{key} is not a verb"
        assert writes.param in inspect.signature(_resolve(targets[key])).parameters


@pytest.mark.parametrize("verb", [
    ["corpus", "build", "BENCH", "--input", "docs", "--skip-passage-dedup", "--tokenizer",
     "words"],
    ["corpus", "extract", "BENCH", "--input", "docs"],
    ["run", "BENCH", "--recipe", "recipe.yaml"],
])
def test_a_second_writer_is_refused_at_once_and_writes_nothing(tmp_path: Path,
                                                               verb: list[str]) -> None:
    _docs(tmp_path)
    _recipe(tmp_path)
    bench = tmp_path / "bench"
    holder = hold(bench, 60)
    try:
        before = sorted(p.relative_to(bench) for p in bench.rglob("*"))
        started = time.monotonic()
        done = irforge(*[str(bench) if arg == "BENCH" else arg for arg in verb], cwd=tmp_path)
        assert time.monotonic() - started < 30, "refused at once, not after a wait"
        assert done.returncode == 6, done.stdout + done.stderr
        assert f"in use by pid {holder.pid}" in done.stderr
        assert "Traceback" not in done.stderr
        assert sorted(p.relative_to(bench) for p in bench.rglob("*")) == before
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()


def test_two_corpus_builds_at_once_never_duplicate_rows(tmp_path: Path) -> None:
    _docs(tmp_path)
    args = [sys.executable, "-m", "irforge", "corpus", "build", str(tmp_path / "bench"),
            "--input", "docs", "--skip-passage-dedup", "--tokenizer", "words"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    both = [subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outcomes = [(p.wait(timeout=300), p.stderr.read()) for p in both]  # type: ignore[union-attr]
    codes = sorted(code for code, _ in outcomes)
    assert codes in ([0, 0], [0, 6]), outcomes  # 0 twice only if they did not overlap
    if codes == [0, 6]:
        assert any("in use by pid" in err for code, err in outcomes if code == 6)
    rows = (tmp_path / "bench" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [row.split('"_id":"')[1].split('"')[0] for row in rows]
    assert len(ids) == len(set(ids)) >= 6


@pytest.mark.parametrize("verb", [
    ["run", "afile", "--recipe", "recipe.yaml"],
    ["corpus", "build", "afile", "--input", "docs", "--skip-passage-dedup"],
    ["build", "intents", "afile", "--corpus", "corpus.jsonl", "--model", "openai/x",
     "--api-base", "http://127.0.0.1:9/v1"],
    ["corpus", "build", "afile/inner", "--input", "docs", "--skip-passage-dedup"],
])
def test_a_file_where_the_folder_belongs_is_one_clear_line(tmp_path: Path,
                                                           verb: list[str]) -> None:
    _docs(tmp_path)
    _recipe(tmp_path)
    (tmp_path / "corpus.jsonl").write_text('{"_id": "d1", "text": "flood"}\n', encoding="utf-8")
    (tmp_path / "afile").write_text("not a folder\n", encoding="utf-8")
    done = irforge(*verb, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "is a file, not a folder" in done.stderr and "afile" in done.stderr
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "not a folder\n"
