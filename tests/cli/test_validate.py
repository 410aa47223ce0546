"""Every bad option value is a usage error (exit 2) naming the flag, before any work is done."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from irforge.cli.app import COMMANDS, _resolve, main
from irforge.cli.validate import RULES, check_options


def _exit(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    captured = capsys.readouterr()
    return int(info.value.code or 0), captured.out + captured.err


@pytest.mark.parametrize(("argv", "says"), [
    (["corpus", "chunk", "B", "--max-tokens", "0"], "--max-tokens 0: must be at least 1"),
    (["corpus", "chunk", "B", "--min-tokens", "500", "--max-tokens", "10"],
     "--min-tokens 500 is more than --max-tokens 10"),
    (["corpus", "build", "B", "--input", "in", "--max-doc-chars", "-5"],
     "--max-doc-chars -5: must be at least 1"),
    (["corpus", "build", "B", "--input", "in", "--lsh-threshold", "7"],
     "--lsh-threshold 7.0: must be a fraction in (0, 1]"),
    (["eval", "B", "--bootstrap", "-1"], "--bootstrap -1: must be at least 1"),
    (["build", "multicon", "B", "--corpus", "c.jsonl", "--api-base", "http://[::1"],
     "--api-base http://[::1: is not a valid URL"),
    (["build", "multicon", "B", "--corpus", "c.jsonl", "--api-base", "ftp://host/v1"],
     "--api-base ftp://host/v1: must start with http:// or https://"),
    (["build", "multicon", "B", "--corpus", "c.jsonl", "--api-base", "localhost:8000"],
     "must start with http:// or https://"),
])
def test_a_bad_value_names_its_flag_and_nothing_is_created(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], says: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = _exit(argv, capsys)
    assert code == 2 and says in output, output
    assert "Traceback" not in output
    assert not (tmp_path / "B").exists()  # checked before the folder lock


def test_cache_stats_on_a_corpus_file_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus.jsonl").write_text('{"_id": "a", "text": "x"}\n', encoding="utf-8")
    code, output = _exit(["cache", "stats", "--cache", "corpus.jsonl"], capsys)
    assert code == 2 and "--cache corpus.jsonl: is not an irforge cache" in output


def test_the_api_base_from_the_environment_is_checked_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from irforge.core.errors import IrforgeError
    from irforge.llm.settings import resolve_model

    monkeypatch.setenv("IRFORGE_API_BASE", "ftp://user:secret@host/v1")
    with pytest.raises(IrforgeError, match=r"IRFORGE_API_BASE ftp://host/v1: must start") as info:
        resolve_model("openai/x", config={})
    assert "secret" not in str(info.value)


@pytest.mark.parametrize("verb", [["check"], ["audit", "agreement"], ["export", "--format",
                                                                       "trec", "--out", "o"]])
def test_a_reading_verb_on_a_missing_folder_or_a_file_exits_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        verb: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = _exit([*verb[:2 if verb[0] == "audit" else 1], "nope",
                          *verb[2 if verb[0] == "audit" else 1:]], capsys)
    assert code == 2 and "benchmark folder nope does not exist" in output
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    code, output = _exit([*verb[:2 if verb[0] == "audit" else 1], "afile",
                          *verb[2 if verb[0] == "audit" else 1:]], capsys)
    assert code == 2 and "is a file" in output and "afile" in output


def test_label_on_a_missing_folder_leaves_no_cache_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = _exit(["label", "nope"], capsys)
    assert code == 2 and "does not exist" in output
    assert not (tmp_path / "nope").exists()


def test_good_values_pass_and_every_rule_names_a_real_option(tmp_path: Path) -> None:
    check_options({"max_tokens": 256, "min_tokens": 16, "lsh_threshold": 0.8,
                   "api_base": "http://user:pw@[::1]:8000/v1", "bootstrap": 1000,
                   "cache": tmp_path / "new.sqlite", "budget": 0.0})
    options = {name for _, _, target in COMMANDS
               for name in inspect.signature(_resolve(target)).parameters}
    assert set(RULES) <= options, set(RULES) - options
