"""Faults in the judge and hypothetical steps, injected through the scripted HTTP server.

The query step answers with the shipped demonstrations, every name changed (an answer
that repeats a prompt's demonstration is rejected as an echo), so that queries reach the
later steps; the judge then refuses one query and the hypothetical step is cut off. Every fault
must end in failures.jsonl while the rest of the build is written.
"""

from __future__ import annotations

from irforge.core.bench import Benchmark
from irforge.core.records import Doc
from irforge.generators.logical.build import build_logical
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.labels import labels_path, read_violations
from irforge.generators.logical.method import Config as LogicalConfig
from irforge.llm import Engine
from irforge.steps.runner import BuildRunner
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.generators.logical.renamed import _renamed, renamed_output

FILMS = Doc("films", _renamed(DEMONSTRATIONS["pin"].passage), "Films of Nadia Okafor")
SCRIPT = Script(default=Action.answer("no rule matched"), rules=(
    Rule("Query type: pin", (Action.answer(renamed_output("pin")),)),
    Rule("Query type: 2in", (Action.answer(renamed_output("2in")),)),
    Rule("Declared type: pin", (Action.answer({"score": 4, "reason": "exact pin"}),)),
    Rule("Declared type: 2in", (Action.refusal("I can't help with that."),)),
    Rule("Search query (pin)", (Action.truncated('{"title": "Tomas Reyes", "text": "Tomas'),)),
))


def test_judge_refusal_and_truncated_negative_become_failures_and_the_rest_is_written(tmp_path):
    # judge controls off: this test counts the judge's prompts (controls are tested in
    # test_judge_controls.py)
    config = LogicalConfig(passage_sentences=0, types=("pin", "2in"), per_type=1, judge=True,
                           hypothetical=True, judge_controls=False)
    with ScriptedServer(SCRIPT) as server, Engine(
            "openai/scripted", api_base=server.url, cache_path=tmp_path / "cache.sqlite",
            progress=False, backoff_initial=0.01, backoff_max=0.05, timeout=2.0) as engine:
        summary = build_logical(BuildRunner.open(engine, tmp_path / "bench", "logical"), [FILMS],
                                config)
        assert server.count("Query type:") == 2 and server.count("Declared type:") == 2
        assert server.count("Search query (pin)") == 1  # only the query the judge kept

    bench = Benchmark(tmp_path / "bench")
    assert [q.query_id for q in bench.queries()] == ["lq-pin-0000"]
    query = next(bench.queries())
    assert query.metadata["judge_score"] == 4 and query.metadata["answer"] == "Rosa Tamm"
    assert bench.qrels_dict() == {"lq-pin-0000": {"films": 2}}
    failures = {(f.step, f.item_id): f for f in bench.failures()}
    assert set(failures) == {("logical.judge", "lq-2in-0000"),
                             ("logical.hypothetical", "lq-pin-0000")}
    assert failures["logical.judge", "lq-2in-0000"].reason.startswith("llm refused")
    assert failures["logical.hypothetical", "lq-pin-0000"].reason.startswith("llm truncated")
    assert [(j.query_id, j.doc_id, j.label) for j in bench.judgments()
            if j.task == "logical.structure"] == [("lq-pin-0000", "films", 4.0)]
    # the kept query's accepted output (what `annotate push --job evidence_distribution`
    # shows people); the query the judge dropped is not there
    assert [(j.task, j.query_id, j.doc_id, j.label) for j in bench.judgments()
            if j.task != "logical.structure"] == [("logical.query", "lq-pin-0000", "films", 1.0)]
    assert read_violations(labels_path(bench.root)) == {"lq-pin-0000": {"films": 0}}
    assert {name: dict(y.rejected) for name, y in summary.yields.steps.items()} == {
        "logical.query": {}, "logical.judge": {"llm refused": 1},
        "logical.hypothetical": {"llm truncated": 1}}
    assert [row["accepted"] for row in bench.manifest()["steps"]["logical"]["yield"]] == [2, 1, 0]
    step = bench.manifest()["steps"]["logical"]
    assert set(step["engine"]["prompts"]) == {"logical.query", "logical.judge",
                                              "logical.hypothetical"}
