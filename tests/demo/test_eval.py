"""The demo's eval stage: skips with a reason without qrels, evaluates when they exist."""

from __future__ import annotations

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Qrel, Query
from irforge.demo import STAGES, DemoContext
from irforge.demo.eval import run_eval_stage, stage_eval

DOCS = [Doc(f"d{i}", text, title) for i, (title, text) in enumerate([
    ("Flood warnings on the Severn", "Heavy rain raised the river Severn; towns were warned."),
    ("Sourdough bread", "A starter of flour and water leavens sourdough bread."),
    ("Glacier retreat", "Alpine glaciers lost a tenth of their volume in two summers."),
    ("Chess openings", "The Sicilian defence answers 1.e4 with c5."),
    ("Tidal power", "Tidal barrages turn the rise and fall of the sea into electricity."),
    ("Honey bees", "Worker bees dance to tell the hive where flowers are."),
])]


def test_eval_stage_is_registered_after_the_corpus():
    names = [name for name, _ in STAGES]
    assert "eval" in names and names.index("eval") > names.index("corpus")
    assert dict(STAGES)["eval"] == "irforge.demo.eval:stage_eval"


def test_eval_stage_skips_without_qrels(tmp_path):
    Benchmark(tmp_path).write_corpus(DOCS)
    summary = stage_eval(DemoContext(out=tmp_path, model=None))
    assert summary.startswith("skipped: no qrels")


@pytest.mark.slow
def test_eval_stage_evaluates_bm25_and_dense_on_the_sample_corpus(tmp_path):
    docs = DOCS
    bench = Benchmark(tmp_path)
    bench.write_corpus(docs)
    queries = [Query(f"q{i}", doc.title) for i, doc in enumerate(docs[:5])]
    bench.write_queries(queries)
    bench.write_qrels([Qrel(q.query_id, d.doc_id, 1) for q, d in zip(queries, docs,
                                                                       strict=False)])
    summary = run_eval_stage(tmp_path)
    assert "bm25-lucene nDCG@10=" in summary and "dense-minilm nDCG@10=" in summary
    assert (tmp_path / "eval" / "report.html").is_file()


def test_eval_stage_finds_benchmarks_in_sub_folders(tmp_path):
    sub = tmp_path / "method-bench"
    bench = Benchmark(sub)
    bench.write_corpus(DOCS)
    bench.write_queries([Query("q0", "river Severn flood")])
    bench.write_qrels([Qrel("q0", "d0", 1)])
    Benchmark(tmp_path).write_corpus(DOCS)  # the top folder has no qrels
    summary = run_eval_stage(tmp_path, retrievers=("bm25",))
    assert summary.startswith(f"generated: {sub}: bm25-lucene nDCG@10=1.000")
    assert (sub / "eval" / "results.json").is_file()


def test_demo_fails_when_no_generator_kept_anything_and_prints_the_yield(tmp_path):
    import pytest

    from irforge.core.errors import EmptyResultError
    from irforge.demo import demo_yield, final_report
    from irforge.steps import StepYield
    from irforge.steps.yields import YieldTable, require_yield

    bench = Benchmark(tmp_path / "logical")
    bench.record_step("logical", {"yield": YieldTable().extend(
        [StepYield("logical.query", 3, 0, {"llm truncated": 3})]).to_manifest()})
    table = demo_yield(tmp_path)
    assert table.steps["logical.query"].attempted == 3
    assert "logical.query" in final_report(tmp_path, [], table)
    with pytest.raises(EmptyResultError, match="llm truncated"):
        require_yield(table, "generated items")


def test_hand_written_queries_are_scored_apart_and_not_counted_as_generated(tmp_path):
    from irforge.demo import generated_count_line

    made, hand = tmp_path / "method-bench", tmp_path  # the root holds only a hand-written query
    for folder, query in ((made, Query("g0", "river Severn flood")),
                          (hand, Query("h0", "Severn river towns warned", {"hand_written": True}))):
        bench = Benchmark(folder)
        bench.write_corpus(DOCS)
        bench.write_queries([query])
        bench.write_qrels([Qrel(query.query_id, "d0", 1)])
    summary = run_eval_stage(tmp_path, retrievers=("bm25",))
    generated, _, reference = summary.partition(" | ")
    assert generated.startswith(f"generated: {made}:") and str(tmp_path) + ":" not in generated
    assert reference.startswith(f"hand-written: {tmp_path}:")
    assert generated_count_line(tmp_path) == (
        "Generated queries kept: 1 (intents (root) 0, method-bench 1)")


def test_a_folder_whose_judge_failed_its_controls_is_not_scored(tmp_path):
    from irforge.core.trust import record_judge

    made, hand = tmp_path / "method-bench", tmp_path / "seed"
    for folder, query in ((made, Query("g0", "river Severn flood")),
                          (hand, Query("h0", "Severn river towns warned", {"hand_written": True}))):
        bench = Benchmark(folder)
        bench.write_corpus(DOCS)
        bench.write_queries([query])
        bench.write_qrels([Qrel(query.query_id, "d0", 1)])
    record_judge(made, "relevance", {
        "status": "untrusted", "trusted": False, "qrels_splits": ["test"],
        "lines": ["relevance.ensemble: accuracy 0.50 [0.28, 0.72] (8/16 controls)"]})
    summary = run_eval_stage(tmp_path, retrievers=("bm25",))
    assert f"{made}: not scored (judge relevance failed its controls" in summary
    assert not (made / "eval").exists()  # no score of untrusted qrels was written
    assert (hand / "eval" / "report.md").is_file()  # what is trustworthy is still scored
