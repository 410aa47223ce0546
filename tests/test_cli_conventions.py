"""Command-line conventions: --version, usage errors (exit 2, one screen, no traceback, a
suggestion), shell completion, --quiet/--verbose and --json summaries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def irforge(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "irforge", *args], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, **(env or {})})


def test_version_exits_zero() -> None:
    from irforge import __version__

    result = irforge("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"irforge {__version__}"


@pytest.mark.parametrize(("args", "expected"), [
    (("chek",), "Did you mean 'check'"),
    (("check", "--bogus"), "No such option: --bogus"),
    (("check", "--jsn", "x"), "Possible options: --json"),
    (("eval",), "Missing argument"),
    (("export", "bench"), "Missing option '--format'"),
])
def test_usage_errors_are_short_and_exit_two(args: tuple[str, ...], expected: str) -> None:
    result = irforge(*args)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert expected in output
    assert "Traceback" not in output and len(output.splitlines()) <= 24
    assert "Usage: irforge" in output


def test_bare_irforge_shows_help_without_traceback() -> None:
    result = irforge()
    output = result.stdout + result.stderr
    assert result.returncode == 2  # click's convention: help shown because arguments are missing
    assert "Usage: irforge" in output and "export" in output and "Traceback" not in output


def test_shell_completion_script_and_completions() -> None:
    script = irforge("completion", "bash")
    assert script.returncode == 0 and "_IRFORGE_COMPLETE" in script.stdout
    assert "compdef" in irforge("completion", "zsh").stdout
    unknown = irforge("completion", "sh")
    assert unknown.returncode == 2 and "choose one of bash" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    words = irforge(env={"_IRFORGE_COMPLETE": "complete_bash", "COMP_WORDS": "irforge ex",
                         "COMP_CWORD": "1"})
    assert words.returncode == 0
    assert {"export"} <= set(words.stdout.split())


def test_check_json_and_quiet(tmp_path: Path) -> None:
    from irforge.data.sample import write_seed_benchmark

    write_seed_benchmark(tmp_path / "bench")
    result = irforge("--quiet", "check", str(tmp_path / "bench"), "--json")
    assert result.returncode == 0 and result.stderr == ""
    summary = json.loads(result.stdout)
    assert summary["ok"] is True and summary["counts"]["queries"] == 24
    (tmp_path / "bench" / "queries.jsonl").write_text("{oops\n", encoding="utf-8")
    broken = irforge("check", str(tmp_path / "bench"), "--json")
    assert broken.returncode == 1
    problems = json.loads(broken.stdout)["problems"]
    assert any(problem["file"].endswith("queries.jsonl") and problem["line"] == 1
               for problem in problems)  # problems are objects {file, line, field, ...}


def test_verbose_turns_on_logging(tmp_path: Path) -> None:
    from irforge.core.verbosity import VERBOSITY_ENV

    code = ("import logging, os, sys; from irforge.cli.app import main; sys.argv = ['irforge', "
            "'-vv', 'version'];\ntry:\n main()\nexcept SystemExit: pass\n"
            f"print(os.environ[{VERBOSITY_ENV!r}], logging.getLogger('irforge').level)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.stdout.split()[-2:] == ["2", str(10)]


def test_corpus_build_prints_one_json_object(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from irforge.cli.app import build_app

    source = tmp_path / "txt"
    source.mkdir()
    (source / "a.txt").write_text("Title a\n\n" + "Zone a has a flood plan. " * 30,
                                  encoding="utf-8")
    corpus = CliRunner().invoke(build_app(), [
        "corpus", "build", str(tmp_path / "c"), "--input", str(source), "--tokenizer", "words",
        "--skip-passage-dedup", "--workers", "1", "--json"])
    assert corpus.exit_code == 0, corpus.output
    stages = json.loads(corpus.stdout)["stages"]
    assert stages["write"]["passages"] >= 1 and stages["extract"]


def test_eval_on_a_missing_folder_says_the_folder_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    result = irforge("eval", str(missing))
    assert result.returncode == 2
    assert f"benchmark folder {missing} does not exist" in result.stderr
    assert "qrels" not in result.stderr.splitlines()[0].split("does not exist")[0]
    assert "Traceback" not in result.stderr
    afile = tmp_path / "file.txt"
    afile.write_text("x", encoding="utf-8")
    result = irforge("eval", str(afile))
    assert result.returncode == 2 and "is a file, not a benchmark folder" in result.stderr


def test_tables_without_a_terminal_use_the_full_width(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.table import Table

    from irforge.cli.output import PLAIN_WIDTH, table_console

    monkeypatch.delenv("COLUMNS", raising=False)
    console = table_console()  # pytest captures stdout: no terminal
    assert not console.is_terminal and console.width == PLAIN_WIDTH
    table = Table()
    for index in range(8):
        table.add_column(f"metric_column_{index}")
    table.add_row(*(f"0.{index}234" for index in range(8)))
    with console.capture() as captured:
        console.print(table)
    assert "metric_column_7" in captured.get() and "\x1b[" not in captured.get()
    monkeypatch.setenv("COLUMNS", "120")
    assert table_console().width == 120
