"""Every Python block of README.md runs as written, each alone in an empty folder, and the
README's cheap shell commands (export, recipe init, check, view) run on the sample benchmark."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)
CHEAP = ("irforge export ", "irforge recipe init ", "irforge check ", "irforge view ",
         "irforge --version")


def blocks(language: str) -> list[str]:
    """The fenced blocks of README.md in ``language``, in order."""
    return [body for lang, body in FENCE.findall(README.read_text(encoding="utf-8"))
            if lang == language]


def cheap_commands() -> list[str]:
    """The README's shell lines that need no model: comments and ``[optional]`` parts cut."""
    out = []
    for body in blocks("bash"):
        for line in body.splitlines():
            line = re.sub(r"\[[^\]]*\]", "", line.split("#")[0]).strip()
            if line.startswith(CHEAP):
                out.append(line)
    return out


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run in ``cwd`` offline, as a new user would (no IRFORGE_* settings, a fresh HF cache)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("IRFORGE_")}
    env.update(PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", LITELLM_LOCAL_MODEL_COST_MAP="True",
               TOKENIZERS_PARALLELISM="false", HF_HOME=str(cwd / ".hf-home"))
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_the_readme_has_the_blocks_this_test_runs() -> None:
    python = blocks("python")
    assert len(python) >= 2 and any("Engine(" in body for body in python)
    assert any(c.startswith("irforge export") for c in cheap_commands())


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_block_runs_alone(index: int, tmp_path: Path) -> None:
    body = blocks("python")[index]
    (tmp_path / "block.py").write_text(body, encoding="utf-8")
    done = _run([sys.executable, "block.py"], tmp_path)
    assert done.returncode == 0, f"README python block {index} failed:\n{body}\n{done.stderr}"
    if "Engine(" in body:
        assert done.stdout.startswith("ok final_score="), done.stdout
    if "evaluate(" in body and "Engine(" in body:
        assert "'ndcg_cut.10':" in done.stdout and "'P.5':" in done.stdout


def test_cheap_shell_commands_run_on_the_sample_benchmark(tmp_path: Path) -> None:
    from irforge.data.sample import write_seed_benchmark

    write_seed_benchmark(tmp_path / "bench")
    for command in cheap_commands():
        args = shlex.split(command)
        done = _run([sys.executable, "-m", "irforge", *args[1:]], tmp_path)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, command
    assert (tmp_path / "out" / "trec" / "topics.tsv").is_file()
    assert (tmp_path / "bench" / "view" / "index.html").is_file()
