"""Agreement, ranking and data audits on small benchmark folders, through the library and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from irforge.audits.data import (
    near_duplicate_queries,
    pool_audit,
    query_sources,
    source_overlap,
)
from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError
from irforge.core.records import Doc, Judgment, Qrel, Query, Run
from irforge.eval.run_scores import score_runs
from irforge.validators.adjudication import majority_label
from irforge.validators.llm_agreement import ENSEMBLE, agreement_table, pair_judgments
from irforge.validators.rankings import compare_rankings, load_results
from irforge.validators.statistics import cohen_kappa

PROMPTS = ("relevance.direct", "relevance.cot", "relevance.attributes")


def _bench_with_judgments(root: Path, seed: int = 0, items: int = 40) -> tuple[Benchmark, dict]:
    """LLM labels from three prompts (0-3) and two people (0/1) with known truth."""
    rng = np.random.default_rng(seed)
    bench = Benchmark(root)
    bench.write_queries([Query(f"q{i}", f"query {i}", {"intent": ("QA", "FC")[i % 2]})
                         for i in range(items)])
    judgments, truth = [], {}
    for i in range(items):
        relevant = int(rng.random() < 0.5)
        truth[f"q{i}"] = relevant
        for prompt in PROMPTS:
            label = int(rng.integers(1, 4)) if relevant else 0
            if rng.random() < 0.15:
                label = 0 if label else 2
            judgments.append(Judgment(f"q{i}", "d1", label, "llm", prompt_id=prompt, model="m"))
        for annotator in ("alice", "bob"):
            judgments.append(Judgment(f"q{i}", "d1", relevant, "human", annotator=annotator))
    bench.add_judgments(judgments)
    return bench, truth


def test_pairs_ensemble_is_the_prompt_mean_and_people_are_adjudicated(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path)
    bench.add_judgments([
        Judgment("q1", "d1", 3, "llm", prompt_id="a"),
        Judgment("q1", "d1", 0, "llm", prompt_id="b"),
        Judgment("q1", "d1", 1, "llm", prompt_id="a"),  # a re-run of prompt a replaces it
        Judgment("q1", "d1", 2, "human", annotator="x"), Judgment("q1", "d1", 2, "human",
                                                                  annotator="y"),
        Judgment("q1", "d1", 0, "human", annotator="z"),
        Judgment("q2", "d1", 1, "human", annotator="x"),  # no LLM label: not paired
        Judgment("q1", "d1", 1, "llm", prompt_id="other", task="sts"),
    ])
    queries = [Query("q1", "t", {"intent": "QA", "type": "2i"})]
    [pair] = pair_judgments(bench.judgments(), queries)
    assert pair.human == 2.0
    assert pair.llm == {"a": 1.0, "b": 0.0, ENSEMBLE: 0.5}
    assert pair.strata == {"intent": "QA", "type": "2i"}


def test_agreement_table_binarizes_like_disastir(tmp_path: Path) -> None:
    bench, truth = _bench_with_judgments(tmp_path)
    pairs = pair_judgments(bench.judgments(), list(bench.queries()))
    rows = agreement_table(pairs, ("intent",), threshold=0.0, n_resamples=200, seed=1)
    by_key = {(row.stratum, row.value, row.rater): row for row in rows}
    assert {row.rater for row in rows} == {*PROMPTS, ENSEMBLE}
    assert {row.value for row in rows if row.stratum == "intent"} == {"QA", "FC"}
    for rater in (*PROMPTS, ENSEMBLE):
        human = [truth[p.query_id] for p in pairs]
        llm = [int(p.llm[rater] > 0) for p in pairs]
        row = by_key[("all", "all", rater)]
        assert row.kappa == pytest.approx(cohen_kappa(human, llm))
        assert row.n == 40 and row.low <= row.kappa <= row.high
    qa = [p for p in pairs if p.strata["intent"] == "QA"]
    assert by_key[("intent", "QA", ENSEMBLE)].n == len(qa) == 20
    graded = agreement_table(pairs, (), threshold=None, weights="quadratic", n_resamples=10)
    assert all(row.n == 40 for row in graded)


def test_audit_agreement_cli_writes_table_json_and_plot(tmp_path: Path) -> None:
    _bench_with_judgments(tmp_path)
    result = CliRunner().invoke(build_app(), ["audit", "agreement", str(tmp_path),
                                              "--strata", "intent", "--resamples", "50"])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "audits" / "agreement_relevance.json").read_text())
    assert report["pairs"] == 40 and report["binarized"] is True
    assert len(report["rows"]) == 4 * 3  # (all, QA, FC) x (3 prompts + ensemble)
    png = (tmp_path / "audits" / "agreement_relevance.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert "ensemble" in result.output


def test_audit_agreement_on_one_item_says_too_few_instead_of_nan(tmp_path: Path) -> None:
    _bench_with_judgments(tmp_path, items=1)
    result = CliRunner().invoke(build_app(), ["audit", "agreement", str(tmp_path),
                                              "--strata", "intent", "--resamples", "20"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "nan" not in said.lower() and "too few items" in said
    assert "1 with both an LLM and a human label" in said and "annotate more" in said
    assert "alpha_nominal=n/a (too few items)" in said
    report = json.loads((tmp_path / "audits" / "agreement_relevance.json").read_text())
    assert report["rows"] and all(row["kappa"] is None for row in report["rows"])
    assert "no plot: no kappa is defined" in said
    assert not (tmp_path / "audits" / "agreement_relevance.png").exists()  # no empty bars


def test_audit_agreement_without_human_labels_says_what_to_do(tmp_path: Path) -> None:
    Benchmark(tmp_path).add_judgments([Judgment("q", "d", 1, "llm", prompt_id="a")])
    result = CliRunner().invoke(build_app(), ["audit", "agreement", str(tmp_path)])
    assert result.exit_code != 0
    assert "annotate pull" in str(result.exception)


def test_majority_label_tie_breaks() -> None:
    assert majority_label([1, 1, 0]) == 1
    assert majority_label([0, 2], "lower") == 0
    assert majority_label([0, 2], "higher") == 2
    assert majority_label([2, 0], "first") == 2
    assert majority_label([0, 3, 1, 1, 3, 0]) == 1  # three-way tie: the one nearest the median
    with pytest.raises(ValueError, match="tie-break"):
        majority_label([0, 1], "coin")


def test_rankings_from_results_files(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps({"bm25": {"ndcg@10": 0.5}, "dense": {"ndcg@10": 0.6},
                                 "hybrid": {"ndcg@10": 0.7}, "random": {"ndcg@10": 0.1}}))
    second.write_text(json.dumps([{"system": "bm25", "ndcg@10": 0.55},
                                  {"system": "dense", "ndcg@10": 0.5},
                                  {"system": "hybrid", "ndcg@10": 0.8},
                                  {"system": "random", "ndcg@10": 0.05}]))
    comparison = compare_rankings(load_results(first, "ndcg@10"), load_results(second, "ndcg@10"),
                                  "ndcg@10", n_resamples=100)
    assert comparison.kendall.value == pytest.approx(4 / 6)
    result = CliRunner().invoke(build_app(), ["audit", "rankings", "--results-a", str(first),
                                              "--results-b", str(second)])
    assert result.exit_code == 0, result.output
    assert "Kendall tau-b = 0.6667" in result.output
    with pytest.raises(FormatError, match="no metric 'map'"):
        load_results(first, "map")


def _write_run(path: Path, scores: dict[str, dict[str, float]]) -> Path:
    lines = []
    for qid, docs in scores.items():
        ranked = sorted(docs.items(), key=lambda item: -item[1])
        lines += [f"{qid} Q0 {doc} {rank} {score} {path.stem}"
                  for rank, (doc, score) in enumerate(ranked, 1)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_rankings_from_runs_under_two_qrels(tmp_path: Path) -> None:
    llm_qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    human_qrels = {"q1": {"d2": 1, "d1": 0}, "q2": {"d3": 1}}
    good = _write_run(tmp_path / "good.trec", {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}})
    flipped = _write_run(tmp_path / "flipped.trec", {"q1": {"d2": 2.0, "d1": 1.0},
                                                     "q2": {"d3": 1.0}})
    from irforge.validators.rankings import read_trec_run

    runs = [read_trec_run(good), read_trec_run(flipped)]
    under_llm = score_runs(runs, llm_qrels, "ndcg@10")
    under_human = score_runs(runs, human_qrels, "ndcg@10")
    assert under_llm["good"] == pytest.approx(1.0) and under_llm["flipped"] < 1.0
    assert compare_rankings(under_llm, under_human, n_resamples=10).kendall.value == -1.0
    assert score_runs(runs, llm_qrels, "ndcg@10", {"q2"}) == {"good": 1.0, "flipped": 1.0}
    with pytest.raises(ValueError, match="unknown metric"):
        score_runs(runs, llm_qrels, "bleu@4")
    (tmp_path / "qrels").mkdir()
    for name, qrels in (("llm", llm_qrels), ("human", human_qrels)):
        Benchmark(tmp_path).write_qrels([Qrel(q, d, r) for q, docs in qrels.items()
                                         for d, r in docs.items()], name)
    result = CliRunner().invoke(build_app(), [
        "audit", "rankings", "--runs", str(good), "--runs", str(flipped),
        "--qrels-a", str(tmp_path / "qrels" / "llm.tsv"),
        "--qrels-b", str(tmp_path / "qrels" / "human.tsv"), "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "r.json").read_text())["kendall_tau_b"]["value"] == -1.0


def test_malformed_run_file_names_the_line(tmp_path: Path) -> None:
    from irforge.validators.rankings import read_trec_run

    path = tmp_path / "bad.trec"
    path.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 high tag\n")
    with pytest.raises(FormatError, match=r"bad.trec:2: field 'score'"):
        read_trec_run(path)


def test_near_duplicates_overlap_and_pool() -> None:
    queries = [Query("a", "Which rivers flooded the city of Leeds in 2015?"),
               Query("b", "which rivers flooded the city of Leeds in 2015"),
               Query("c", "Effects of volcanic ash on jet engines")]
    pairs = near_duplicate_queries(queries)
    assert [(p.query_a, p.query_b) for p in pairs] == [("a", "b")]
    assert pairs[0].similarity == 1.0
    docs = {"d1": Doc("d1", "The rivers Aire and Calder flooded Leeds city in 2015."),
            "d2": Doc("d2", "Ash clouds damage engines.")}
    sources = query_sources([Query("a", "x", {"source_doc_ids": ["d1"]}), Query("c", "y")],
                            {"c": {"d2": 1, "d1": 0}})
    assert sources == {"a": ["d1"], "c": ["d2"]}
    report = source_overlap(queries, docs, sources, threshold=0.8)
    # a: rivers flooded city leeds 2015 all in d1; c: only ash and engines of five terms in d2
    assert report.per_query["a"] == 1.0
    assert report.per_query["c"] == pytest.approx(2 / 5)
    assert report.share_above == 0.5
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    run = Run("r", {"q1": {"d1": 3.0, "d2": 2.0, "d9": 1.0}, "q2": {"d3": 2.0, "d8": 1.0}})
    pool = pool_audit([run], qrels, k=2)
    assert pool.unjudged_at_k["r"] == pytest.approx(1 / 4)
    assert pool.judged_depth["r"] == 1
    assert pool.pool_size_mean == 1.5


def test_human_reliability_matches_krippendorff(tmp_path: Path) -> None:
    import krippendorff

    from irforge.validators.llm_agreement import human_reliability

    labels = {"ann1": [0, 1, 2, 2, None], "ann2": [0, 1, 1, 2, 3], "ann3": [0, None, 2, 2, 3]}
    judgments = [Judgment(f"q{i}", "d", value, "human", annotator=name)
                 for name, values in labels.items() for i, value in enumerate(values)
                 if value is not None]
    judgments.append(Judgment("q0", "d", 1, "human", annotator="ann1", task="sts"))
    report = human_reliability(judgments)
    data = np.array([[np.nan if v is None else v for v in labels[name]] for name in sorted(labels)])
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert report[f"alpha_{level}"] == pytest.approx(expected)
    assert report["fleiss_items"] == 3 and report["annotators"] == 3


def test_demo_audit_stage_reports_on_generated_queries(tmp_path: Path) -> None:
    from irforge.demo import DemoContext
    from irforge.demo.audit import stage_audit

    ctx = DemoContext(out=tmp_path, model=None)
    assert "nothing to audit" in stage_audit(ctx)
    bench, _ = _bench_with_judgments(tmp_path, items=10)
    bench.write_queries([Query("q0", "floods in Leeds"), Query("q1", "Floods in Leeds!"),
                         Query("q2", "ash and engines")])
    summary = stage_audit(ctx)
    assert summary.startswith("3 queries, 1 near-duplicate pairs")
    report = json.loads((tmp_path / "audits" / "demo_audit.json").read_text())
    assert set(report["kappa"]) == {*PROMPTS, "ensemble"}


def test_data_audit_commands_write_their_reports(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path)
    bench.write_corpus([Doc("d1", "Rivers flooded Leeds city in 2015."), Doc("d2", "Ash.")])
    bench.write_queries([Query("a", "rivers flooded Leeds 2015"),
                         Query("b", "Rivers flooded Leeds, 2015?"), Query("c", "volcanic ash")])
    bench.write_qrels([Qrel("a", "d1", 2), Qrel("b", "d1", 1), Qrel("c", "d2", 1)])
    run = _write_run(tmp_path / "bm25.trec", {"a": {"d1": 2.0, "d9": 1.0}, "c": {"d2": 1.0}})
    app, runner = build_app(), CliRunner()
    result = runner.invoke(app, ["audit", "duplicates", str(tmp_path)])
    assert result.exit_code == 0 and "1 near-duplicate pair(s) among 3 queries" in result.output
    rows = (tmp_path / "audits" / "near_duplicate_queries.jsonl").read_text().splitlines()
    assert json.loads(rows[0]) == {"query_a": "a", "query_b": "b", "similarity": 1.0}
    result = runner.invoke(app, ["audit", "overlap", str(tmp_path)])
    assert result.exit_code == 0, result.output
    overlap = json.loads((tmp_path / "audits" / "query_source_overlap.json").read_text())
    assert overlap["per_query"] == {"a": 1.0, "b": 1.0, "c": 0.5}
    result = runner.invoke(app, ["audit", "pool", str(tmp_path), "--runs", str(run), "--k", "2"])
    assert result.exit_code == 0, result.output
    # a: d1 judged, d9 not; b: not answered by the run; c: d2 judged -> 1 of 3, depth 1
    assert "│ bm25 │ 0.333" in result.output and "│ 1 " in result.output
