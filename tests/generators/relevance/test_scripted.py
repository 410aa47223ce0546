"""The CoT phase rule through the real engine and HTTP path, against the scripted server.

The scripted rater ignores phase one: after answering "No" it still says 3. The engine's
schema for phase three after "No" admits only 0 or 1, so the answer is re-asked and ends
invalid; no judgment of 2 or 3 can follow a "No".
"""

from __future__ import annotations

from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Query
from irforge.generators.intents import load_intents
from irforge.generators.relevance import LabelSettings, label_benchmark
from irforge.llm import Engine
from irforge.steps.runner import BuildRunner
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

PASSAGES = {"p_no_3": "no answer, rater says 3", "p_no_1": "no answer, rater says 1",
            "p_yes_3": "has the answer, rater says 3"}


def _phase(doc_id: str, key: str) -> str:
    """Text unique to one phase of one pair: the passage line and the answer instruction."""
    return f"{PASSAGES[doc_id]}\n\nAnswer as {{\"{key}\""


def _script() -> Script:
    rules = [
        Rule(_phase("p_no_3", "has_answer"), (Action.answer({"has_answer": "No"}),)),
        Rule(_phase("p_no_1", "has_answer"), (Action.answer({"has_answer": "No"}),)),
        Rule(_phase("p_yes_3", "has_answer"), (Action.answer({"has_answer": "Yes"}),)),
        Rule(_phase("p_no_3", "relevance_score"), (Action.answer({"relevance_score": 3}),)),
        Rule(_phase("p_no_1", "relevance_score"), (Action.answer({"relevance_score": 1}),)),
        Rule(_phase("p_yes_3", "relevance_score"), (Action.answer({"relevance_score": 3}),)),
    ]
    return Script(default=Action.answer({"criterion_score": 2}), rules=tuple(rules))


def test_phase_one_no_can_only_yield_0_or_1(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus([Doc(doc_id, text) for doc_id, text in PASSAGES.items()])
    bench.write_queries([Query("q1", "When is a flood warning issued?", {"intent": "QA"})])
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"query_id": "q1", "doc_ids": ["p_no_3", "p_no_1", "p_yes_3"]}\n',
                     encoding="utf-8")
    settings = LabelSettings(strategies=("cot",))
    with ScriptedServer(_script()) as server:
        with Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.sqlite",
                    concurrency=4, max_reasks=1, progress=False) as engine:
            report = label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [pairs],
                                     load_intents(), settings)
            manifest = engine.manifest_entry()
        # one re-ask for the rater that broke the rule, then it is given up as invalid
        assert server.count(_phase("p_no_3", "relevance_score")) == 2
        asked = len(server.log)
        with Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.sqlite",
                    concurrency=4, max_reasks=1, progress=False) as engine:
            again = label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [pairs],
                                    load_intents(), settings)
        assert len(server.log) == asked, "a re-run is answered from the cache"
    labels = {j.doc_id: j.label for j in bench.judgments()}
    assert labels == {"p_no_1": 1, "p_yes_3": 3}
    failure, no_ensemble = bench.failures()  # a re-run logs no copies
    assert (no_ensemble.step, no_ensemble.item_id) == ("relevance.ensemble", "q1::p_no_3")
    assert failure.item_id == "q1::p_no_3" and failure.step == "relevance.cot"
    assert failure.reason.startswith("final: llm invalid")
    assert '"relevance_score": 3' in failure.raw_output
    assert bench.qrels_dict() == {"q1": {"p_no_1": 1, "p_yes_3": 3}}
    assert report.counts["judgments_written"] == 2 and again.counts["judgments_written"] == 0
    assert manifest["steps"]["relevance.cot"]["reasks"] == 1
