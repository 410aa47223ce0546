"""Empty is never success, and every verb reading a corpus validates it the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.cli.app import main
from irforge.data.sample import write_seed_benchmark
from irforge.testing.scripted import Script, ScriptedServer


def _exit(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    captured = capsys.readouterr()
    return int(info.value.code or 0), captured.out + captured.err


@pytest.mark.parametrize("verb", [["corpus", "pool", "B", "--retriever", "bm25"],
                                  ["audit", "overlap", "B"]])
def test_an_empty_queries_file_is_no_success(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str],
                                             verb: list[str]) -> None:
    """Issue 37: both exited 0 on an empty queries.jsonl (audit printed 'nan%')."""
    monkeypatch.chdir(tmp_path)
    write_seed_benchmark(tmp_path / "B")
    (tmp_path / "B" / "queries.jsonl").write_text("", encoding="utf-8")
    code, output = _exit(verb, capsys)
    assert code == 3, output
    assert "nan" not in output and "Traceback" not in output


BAD_TAILS = {
    "truncated": b'{"_id": "late", "text": "cut sho',
    "non-utf8": b'{"_id": "late", "text": "caf\xe9"}\n',
    "duplicate": b'{"_id": "salt", "text": "again"}\n',
}


@pytest.mark.parametrize("tail", sorted(BAD_TAILS))
def test_build_multicon_validates_its_whole_corpus_before_any_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tail: str) -> None:
    """Issue 37: multicon read only its first --limit documents, so a broken tail went
    unseen and LLM calls were spent."""
    monkeypatch.chdir(tmp_path)
    good = b'{"_id": "salt", "title": "The Salt Orchard", "text": "A novel of the coast."}\n'
    (tmp_path / "input.jsonl").write_bytes(good * 1 + b"".join(
        b'{"_id": "d%d", "text": "Filler document %d."}\n' % (n, n) for n in range(5))
        + BAD_TAILS[tail])
    with ScriptedServer(Script()) as server:
        code, output = _exit(["build", "multicon", "B", "--corpus", "input.jsonl", "--limit",
                              "1", "--domain", "books", "--model", "openai/scripted",
                              "--api-base", server.url,
                              "--cache", str(tmp_path / "cache.sqlite")], capsys)
        assert len(server.log) == 0  # nothing was sent
    assert code == 2 and "input.jsonl:7" in output, output
