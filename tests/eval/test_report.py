"""The report a paper can use: provenance, ungrouped queries, significance, LaTeX, and only the
plots that apply, titled with n per point, as PNG and SVG."""

from __future__ import annotations

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Qrel, Query
from irforge.data.sample import write_seed_benchmark
from irforge.eval.provenance import qrels_provenance
from irforge.eval.report import write_outputs
from irforge.eval.runner import evaluate_benchmark

TOPICS = ["river flood warnings", "sourdough bread starter", "glacier retreat in the alps",
          "chess opening theory"]


def test_report_has_provenance_groups_significance_latex_and_titled_plots(tmp_path):
    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus([Doc(f"d{i}", f"An article about {t}.") for i, t in enumerate(TOPICS)])
    types = ["x", "y", "z", None]
    bench.write_queries([Query(f"q{i}", t, {"type": types[i]} if types[i] else {})
                         for i, t in enumerate(TOPICS)])
    bench.write_qrels([Qrel(f"q{i}", f"d{i}", 1) for i in range(len(TOPICS))])
    bench.record_step("relevance", {"strategies": ["zero-shot"], "engine": {
        "model": "embedded-smollm2", "backend": "llama", "demo_grade": True}})
    results = evaluate_benchmark(bench.root, ["bm25", "bm25:okapi"], metrics=["ndcg@10", "mrr"],
                                 bootstrap=50, trials=100)
    assert results.groups == {"field": "type", "counts": {"x": 1, "y": 1, "z": 1},
                              "ungrouped": 1}
    assert results.provenance["source"] == "llm" and results.provenance["demo_grade"]
    written = write_outputs(results, tmp_path / "eval")
    report = written["report"].read_text()
    assert "LLM judgments by embedded-smollm2 (strategies: zero-shot)" in report
    assert "DEMO GRADE" in report
    assert "ungrouped 1" in report and "1 judged queries have no `type`" in report
    assert "| ndcg@10 | bm25-lucene | bm25-okapi | 4 |" in report  # the significance table
    latex = written["latex"].read_text()
    assert "\\begin{tabular}{lrr}" in latex and "bm25-okapi &" in latex
    # four queries cannot make two systems differ: no † anywhere, so no † note either
    assert "†" not in report and "dagger" not in latex
    assert "counts 0 (trec_eval -c" in report and r"counts 0 (trec\_eval -c" in latex
    from rich.console import Console

    from irforge.eval.report import rich_table

    console = Console(width=200, record=True)
    console.print(rich_table(results))
    shown = console.export_text()
    assert "†" not in shown and "counts 0 (trec_eval -c" in shown
    plots = tmp_path / "eval" / "plots"
    assert sorted(p.name for p in plots.iterdir()) == ["radar.png", "radar.svg"]
    svg = (plots / "radar.svg").read_text()
    assert "ndcg@10 per type" in svg and "(n=1)" in svg


def test_shipped_seed_benchmark_provenance(tmp_path):
    write_seed_benchmark(tmp_path)
    assert qrels_provenance(Benchmark(tmp_path))["source"] == "shipped"
