"""Re-running ``build intents`` for some intents merges: other intents' queries, passages and
the qrels pointing at them survive; a budget-stopped run's skipped rows retire on success.
Through the real CLI and HTTP to the scripted server."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from irforge.check.folder import check_benchmark
from irforge.cli.app import build_app
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.errors import BudgetStopped
from irforge.core.records import Doc, Qrel
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

ANSWER = {"needs": ["how deep was the flood water", "when did the warning start"],
          "query": "How deep was the flood water at the gauge on Monday?",
          "passage": "On Monday the river gauge showed the flood water at 3.5 metres.",
          "claim": "The flood water reached 3.5 metres on Monday."}
DOCS = [Doc(f"d{i}", f"Flood report {i}: the flood gauge rose to {i}.5 metres after rain. "
            f"The river office logged report {i} at the Marrow Bridge station before noon, "
            "and crews checked the levees.")
        for i in range(3)]


def _answer(i: int) -> dict:
    """An answer grounded in seed passage ``i`` (builds reject duplicate query texts)."""
    return {"needs": [f"how high the flood gauge rose in report {i}",
                      f"the rain behind flood report {i}"],
            # short enough for each form QA may ask for (question or keyword, 2-12 words)
            "query": f"How high did the flood gauge rise in report {i}?",
            "passage": f"Report {i}: after the storm the water at the gauge stood {i}.5 m high.",
            "claim": f"Report {i} claims the gauge water stayed under {i + 1} metres all week."}


def _claim(i: int) -> dict:
    """An FC answer for seed passage ``i``: a claim (the query) and new evidence."""
    return {**_answer(i), "query": f"Report {i} claims the flood gauge stayed below {i + 1} m."}


# FC prompts ask for a claim (their system text names a fact-checker); QA prompts do not
SCRIPT = Script(default=Action.answer(ANSWER), rules=(
    *(Rule(f"Flood report {i}:", (Action.answer(_answer(i)),)) for i in range(3)),))


def _fc_script() -> Script:
    return Script(default=Action.answer(ANSWER), rules=tuple(
        Rule(f"Flood report {i}:", (Action.answer(_claim(i)),)) for i in range(3)))


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
    with ScriptedServer(SCRIPT) as server:
        common = _options(bench, server, tmp_path)
        first = runner.invoke(app, ["build", "intents", *common, "--intents", "QA"])
        assert first.exit_code == 0, first.output
        qa = {q.query_id: q for q in bench.queries()}
        assert len(qa) == 2
        bench.write_qrels([Qrel(qid, q.metadata["positive_doc_id"], 1) for qid, q in qa.items()])

    with ScriptedServer(_fc_script()) as server:
        common = _options(bench, server, tmp_path)
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
    """The engine's guard (every verb shares it): a prompt past the model's context is counted
    by the estimate and skipped with a failure, never sent; intents prompts cut their seed
    passage, so a huge document still yields a request of ordinary size."""
    from pydantic import BaseModel

    from irforge.llm import Engine

    class Answer(BaseModel):
        answer: str

    huge = "The flood gauge rose again near the bridge. " * 14_000  # ~150k tokens
    with ScriptedServer(Script(default=Action.answer({"answer": "3.5 metres"}))) as server:
        with Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.sqlite",
                    progress=False) as engine:
            items = [{"prompt": huge}, {"prompt": "How high did the gauge rise?"}]
            estimate = engine.estimate(items, "llm.try", Answer).as_dict()
            assert estimate["too_long"] == 1 and estimate["context_tokens"] == 131072
            results = engine.run(items, "llm.try", Answer)
        assert [r.status for r in results] == ["skipped", "ok"]
        assert "past the model's context" in (results[0].error or "")
        assert len(server.log) == 1  # the huge prompt was never sent

        bench = Benchmark(tmp_path / "bench")
        bench.write_corpus([Doc("big", huge), DOCS[0]])
        run = CliRunner().invoke(build_app(), [
            "build", "intents", *_options(bench, server, tmp_path), "--intents", "QA"])
        assert run.exception is None or getattr(run.exception, "exit_code", 0) in (0, 3), \
            run.output
        assert server.log[1:] and all(len(str(entry.messages)) < 20_000
                                      for entry in server.log[1:])
