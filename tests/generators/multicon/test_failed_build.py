"""A build that keeps nothing leaves the benchmark an earlier build wrote (issue 37, defect 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.cli.app import main
from irforge.core import beir
from irforge.core.records import Doc
from irforge.data.sample import write_seed_benchmark
from irforge.testing.scripted import Action, Script, ScriptedServer
from tests.generators.multicon.docs import NOVEL

KEPT = ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv")


@pytest.mark.parametrize("answer", [Action.refusal(), Action.answer({"unexpected": True})])
def test_a_build_that_keeps_nothing_does_not_empty_the_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: Action) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("IRFORGE_API_KEY", raising=False)
    write_seed_benchmark(tmp_path / "B")
    before = {name: (tmp_path / "B" / name).read_bytes() for name in KEPT}
    beir.write_corpus(tmp_path / "input.jsonl", [Doc("salt", NOVEL, "The Salt Orchard")])
    with ScriptedServer(Script(default=answer)) as server, pytest.raises(SystemExit) as ended:
        main(["build", "multicon", "B", "--corpus", "input.jsonl", "--domain", "books",
              "--model", "openai/scripted", "--api-base", server.url,
              "--cache", str(tmp_path / "cache.sqlite")])
    assert ended.value.code in (3, 5)
    for name, data in before.items():
        assert (tmp_path / "B" / name).read_bytes() == data, f"{name} was changed"
    assert (tmp_path / "B" / "failures.jsonl").read_text(encoding="utf-8").strip()
    assert not (tmp_path / "B" / ".irforge" / "journal").exists()
