"""``irforge label --batch`` through the real engine batch path against the scripted server."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Query
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer


def test_label_batch_labels_through_batches_and_resumes_from_the_cache(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus([Doc("d1", "Flood warnings are issued at 3.2 metres."),
                        Doc("d2", "Shelters open at a hurricane watch.")])
    bench.write_queries([Query("q1", "When are flood warnings issued?", {"intent": "QA"})])
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"query_id": "q1", "doc_ids": ["d1", "d2"]}\n', encoding="utf-8")
    script = Script(default=Action.answer({"final_score": 0}), rules=(
        Rule("Flood warnings are issued", (Action.answer({"final_score": 3}),)),),
        batch_polls=2)
    args = ["label", str(bench.root), "--pairs", str(pairs), "--strategies", "zero_shot",
            "--model", "openai/scripted", "--cache", str(tmp_path / "c.sqlite"), "--batch",
            "--batch-poll", "0.01"]
    runner = CliRunner()
    with ScriptedServer(script) as server:
        first = runner.invoke(build_app(), [*args, "--api-base", server.url])
        assert first.exit_code == 0, first.output
        assert server.app.batches.calls["batches.create"] == 1 and server.log == []
        assert _relevance_step(bench)["engine"]["batches"] == ["batch-1"]
        again = runner.invoke(build_app(), [*args, "--api-base", server.url])
        assert again.exit_code == 0, again.output
        assert server.app.batches.calls["batches.create"] == 1 and server.log == []
    assert {j.doc_id: j.label for j in bench.judgments()} == {"d1": 3, "d2": 0}
    assert _relevance_step(bench)["engine"]["calls"] == 0  # the re-run was all cache


def _relevance_step(bench: Benchmark) -> dict:
    return bench.manifest()["steps"]["relevance"]
