from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from irforge.cli.app import COMMANDS, build_app

HEAVY = ("torch", "litellm", "sentence_transformers", "llama_cpp", "label_studio_sdk", "fitz",
         "transformers", "matplotlib", "ray")


def test_every_registered_verb_resolves_and_has_help() -> None:
    runner = CliRunner()
    app = build_app()
    for group, name, _ in COMMANDS:
        args = [name, "--help"] if group is None else [group, name, "--help"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
        assert "Usage" in result.output


def test_cli_start_imports_no_heavy_dependency() -> None:
    code = ("import sys; from irforge.cli.app import build_app; build_app(); "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]"


def test_known_errors_print_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "corpus.jsonl"
    bad.write_text('{"_id": "a", "text": "x"}\n{oops\n', encoding="utf-8")
    code = ("from irforge.core import beir\n"
            f"list(beir.read_corpus({str(bad)!r}))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0 and "corpus.jsonl:2" in result.stderr
    cli = subprocess.run([sys.executable, "-m", "irforge", "check", str(tmp_path)],
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    assert cli.returncode == 1
    assert "corpus.jsonl:2: malformed JSON" in cli.stdout
    assert "Traceback" not in cli.stdout + cli.stderr
