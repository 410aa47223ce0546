"""Re-running ``build intents`` for some intents merges: other intents' queries, passages and
the qrels pointing at them survive; a budget-stopped run's skipped rows retire on success.
Through the real CLI and HTTP to the scripted server."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from irforge import beir
from irforge.bench import Benchmark
from irforge.check import check_benchmark
from irforge.cli import build_app
from irforge.errors import BudgetStopped
from irforge.llm.scripted import Action, Script, ScriptedServer
from irforge.records import Doc, Qrel

ANSWER = {"needs": ["how deep was the flood water", "when did the warning start"],
          "query": "How deep was the flood water at the gauge on Monday?",
          "passage": "On Monday the river gauge showed the flood water at 3.5 metres.",
          "claim": "The flood water reached 3.5 metres on Monday."}
DOCS = [Doc(f"d{i}", f"Flood report {i}: the flood gauge rose to {i}.5 metres after rain.")
        for i in range(3)]


def _options(bench: Benchmark, server: ScriptedServer, tmp_path: Path) -> list[str]:
    """The folder and options every run of these tests shares (one Flood category)."""
    taxonomy = tmp_path / "tax.yaml"
    taxonomy.write_text("categories:\n  - {name: Flood, keywords: [flood]}\n", encoding="utf-8")
    return [str(bench.root), "--model", "openai/scripted", "--api-base", server.url,
            "--cache", str(tmp_path / "c.sqlite"), "--taxonomy", str(taxonomy), "--per-task", "2"]


def test_rerun_for_another_intent_keeps_labeled_queries_and_retires_skips(
        tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus(DOCS)
    runner, app = CliRunner(), build_app()
    with ScriptedServer(Script(default=Action.answer(ANSWER))) as server:
        common = _options(bench, server, tmp_path)
        first = runner.invoke(app, ["build", "intents", *common, "--intents", "QA"])
        assert first.exit_code == 0, first.output
        qa = {q.query_id: q for q in bench.queries()}
        assert len(qa) == 2
        bench.write_qrels([Qrel(qid, q.metadata["positive_doc_id"], 1) for qid, q in qa.items()])

        stopped = runner.invoke(app, ["build", "intents", *common, "--intents", "FC",
                                      "--budget", "0.0000001", "--price-per-mtok", "1000,1000"])
        assert isinstance(stopped.exception, BudgetStopped), stopped.output
        assert stopped.exception.exit_code == 4
        skipped = [f for f in bench.failures() if "budget" in f.reason]
        assert skipped and all(f.item_id.startswith("FC_") for f in skipped)

        again = runner.invoke(app, ["build", "intents", *common, "--intents", "FC"])
        assert again.exit_code == 0, again.output
    queries = {q.query_id: q for q in bench.queries()}
    assert set(qa) <= set(queries) and {q.metadata["intent"] for q in queries.values()} == {
        "QA", "FC"}
    corpus = {doc.doc_id for doc in beir.read_corpus(bench.corpus_path)}
    assert {q.metadata["positive_doc_id"] for q in qa.values()} <= corpus
    assert {"d0", "d1", "d2"} <= corpus
    report = check_benchmark(bench.root)
    assert report.ok, [str(p) for p in report.problems]
    assert not [f for f in bench.failures() if "budget" in f.reason]  # retired by the success


def test_inputs_past_the_context_are_warned_about_then_skipped_with_a_failure(
        tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    huge = "The flood gauge rose again near the bridge. " * 14_000  # ~150k tokens
    bench.write_corpus([Doc("big", huge), DOCS[0]])
    runner, app = CliRunner(), build_app()
    with ScriptedServer(Script(default=Action.answer(ANSWER))) as server:
        common = [*_options(bench, server, tmp_path), "--intents", "QA"]
        dry = runner.invoke(app, ["build", "intents", *common, "--dry-run"])
        assert dry.exit_code == 0, dry.output
        assert "past the model's context of 131072 tokens" in dry.output
        run = runner.invoke(app, ["build", "intents", *common])
        assert run.exit_code == 0, run.output
        assert all(len(str(entry.messages)) < 100_000 for entry in server.log)  # never sent
    skipped = [f for f in bench.failures() if "past the model's context" in f.reason]
    assert len(skipped) == 1
