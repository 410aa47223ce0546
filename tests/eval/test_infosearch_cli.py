"""``irforge eval`` on a folder built by ``irforge build instructions``'s plain-code assembly.

The CLI must run BM25 in the three InfoSearch modes and report SICR, WISE, p-MRR and
Robustness@10 equal to the Python API's metric functions on the same runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Run
from irforge.core.trec import read_trec_run
from irforge.eval.metrics import infosearch
from irforge.generators.instructions.assemble import assemble, assembled_records, read_modes
from irforge.generators.instructions.units import Group, Member, Unit, unit_id
from irforge.retrievers import get_retriever
from irforge.steps.records import write_records
from tests.eval.test_cli import irforge

GROUPS = [
    Group("q1", "What helps for acne?", "keyword", (
        Member(Doc("d1", "Progesterone creams help acne in some adults."), "progesterone"),
        Member(Doc("d2", "Mint tea is said to help acne and calm the skin."), "mint"),
        Member(Doc("d3", "Chamomile compresses help acne redness."), "chamomile",
               origin="given")),
        hard_negatives=(Doc("q1--hardneg-1", "Acne forums are popular with teenagers."),)),
    Group("q2", "How do flood warnings work?", "audience", (
        Member(Doc("e1", "Hydrological gauges trigger flood warnings through telemetry "
                         "thresholds set by expert forecasters."), "expert"),
        Member(Doc("e1--audience-layman", "Flood warnings work like an alarm: when the river "
                                          "gets high, your phone beeps."), "layman",
               origin="rewritten"))),
    Group("q3", "Who is at risk in a heat wave?", "length", (
        Member(Doc("h1", "Elderly people living alone are at risk in a heat wave."),
               "sentence"),
        Member(Doc("h2", "A heat wave puts several groups at risk. Elderly people living alone "
                         "may not notice dehydration. Babies overheat quickly. Outdoor "
                         "workers face long exposure, and people with heart disease are "
                         "strained by high night temperatures."), "paragraph"))),
]
INSTRUCTED = {"progesterone": "progesterone", "mint": "mint tea", "chamomile": "chamomile",
              "expert": "expert forecasters telemetry", "layman": "like an alarm, phone",
              "sentence": "a single sentence", "paragraph": "several groups, workers"}
SHORT = {"q1": "For acne", "q2": "About flood warnings", "q3": "Heat wave risk"}
DISTRACTORS = [Doc("x1", "Wildfire smoke harms people with asthma."),
               Doc("x2", "Earthquake drills teach pupils to drop and cover."),
               Doc("x3", "Tea plantations need steady rainfall.")]


def _units() -> list[Unit]:
    """Instructed text names the condition; the reversed one (a shorter core query, so BM25
    scores can drop) turns to another member's condition."""
    units = []
    for g in GROUPS:
        for i, m in enumerate(g.members):
            other = g.members[(i + 1) % len(g.members)].condition
            units.append(Unit(
                unit_id(g.query_id, g.dimension, m.condition), g.query_id, g.dimension,
                m.condition, m.doc.doc_id, f"{g.query} Answer with {INSTRUCTED[m.condition]}.",
                f"{SHORT[g.query_id]}, rather {INSTRUCTED[other]}."))
    return units


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("infosearch") / "bench"
    write_records(Benchmark(folder),
                  assembled_records(assemble(GROUPS, _units(), distractors=DISTRACTORS)))
    return folder


@pytest.fixture(scope="module")
def evaluated(bench_dir):
    done = irforge("eval", str(bench_dir), "--retriever", "bm25", "--depth", "100",
                   "--metric", "ndcg@10", "--metric", "mrr")
    assert done.returncode == 0, done.stderr
    return done, json.loads((bench_dir / "eval" / "results.json").read_text())


def _api_runs(bench_dir: Path) -> tuple[dict, dict]:
    """BM25 through the Python API on the three modes: runs and qrels per mode."""
    bench = Benchmark(bench_dir)
    retriever = get_retriever("bm25")
    retriever.index(list(bench.corpus()))
    modes = read_modes(bench)
    runs = {mode: retriever.search(queries, 100).scores for mode, (queries, _) in modes.items()}
    return runs, {mode: qrels for mode, (_, qrels) in modes.items()}


def test_cli_infosearch_metrics_equal_the_python_api(bench_dir, evaluated):
    _, results = evaluated
    system = results["systems"][0]
    got = system["tasks"]["infosearch"]
    runs, qrels = _api_runs(bench_dir)
    args = (runs["og"], runs["changed"], runs["reversed"], qrels["og"], qrels["changed"])
    expected = {
        "sicr": infosearch.sicr(*args),
        "wise": infosearch.wise(*args, k=20),
        "p-mrr": infosearch.p_mrr(runs["og"], runs["reversed"],
                                  infosearch.gold_docs(qrels["changed"])),
        "robustness@10": infosearch.robustness_at_k(
            [(qrels[m], runs[m]) for m in ("og", "changed", "reversed")], k=10),
    }
    assert got["queries"] == 7
    for name, per_query in expected.items():
        assert len(per_query) == 7
        assert got["means"][name] == pytest.approx(sum(per_query.values()) / 7, abs=1e-12)
        for query_id, value in per_query.items():
            assert got["per_query"][query_id][name] == pytest.approx(value, abs=1e-12)
    # the runs differ between modes, so the metrics are computed from three real runs
    assert runs["changed"] != runs["og"] != runs["reversed"]
    assert len(set(expected["wise"].values())) > 1
    assert len(set(expected["sicr"].values())) == 2
    keyword = [q for q in expected["wise"] if q.startswith("q1-")]
    assert got["per_dimension"]["keyword"]["wise"] == pytest.approx(
        sum(expected["wise"][q] for q in keyword) / 3, abs=1e-12)
    assert set(got["per_dimension"]) == {"keyword", "audience", "length"}
    assert got["ndcg@10_by_mode"]["og"] == pytest.approx(system["means"]["ndcg@10"])


def test_cli_writes_mode_runs_table_report_and_dimension_plots(bench_dir, evaluated):
    done, results = evaluated
    out = bench_dir / "eval"
    assert results["group_field"] == "dimension"
    assert set(results["systems"][0]["per_group"]) == {"keyword", "audience", "length"}
    for column in ("sicr", "wise", "p-mrr", "robustness@10"):
        assert column in done.stdout
    changed = read_trec_run(out / "runs" / "bm25-lucene.changed.trec")
    reversed_ = read_trec_run(out / "runs" / "bm25-lucene.reversed.trec")
    assert len(changed.scores) == len(reversed_.scores) == 7
    report = (out / "report.md").read_text()
    assert "## InfoSearch" in report and "### Per dimension" in report
    assert "| bm25-lucene | keyword |" in report
    assert (out / "plots" / "infosearch_radar.png").stat().st_size > 1000
    assert (out / "plots" / "radar.png").stat().st_size > 1000


def test_missing_reversed_text_is_a_clear_error(tmp_path):
    folder = tmp_path / "bench"
    write_records(Benchmark(folder),
                  assembled_records(assemble(GROUPS, _units(), distractors=DISTRACTORS)))
    path = folder / "instructions" / "queries_reversed.jsonl"
    path.write_text("\n".join(path.read_text().splitlines()[1:]) + "\n")
    done = irforge("eval", str(folder), "--retriever", "bm25", "--no-plots")
    assert done.returncode == 2
    assert "queries_reversed.jsonl" in done.stderr and "q1-keyword-progesterone" in done.stderr
    assert "Traceback" not in done.stderr


class WordOverlapReranker:
    """Rescores by words shared with the query text, so each mode's own text must reach it."""

    name = "overlap"

    def rerank(self, queries, docs_by_id, run, k):
        scores = {}
        for query in queries:
            words = set(query.text.lower().split())
            top = sorted(run.scores[query.query_id].items(), key=lambda item: -item[1])[:k]
            scores[query.query_id] = {
                d: float(len(words & set(docs_by_id[d].text.lower().split()))) + s / 100
                for d, s in top}
        return Run(self.name, scores)


def test_reranked_systems_get_infosearch_metrics_from_reranked_mode_runs(bench_dir,
                                                                          monkeypatch):
    from irforge.eval import runner

    monkeypatch.setattr(runner, "get_reranker", lambda spec: WordOverlapReranker())
    results = runner.evaluate_benchmark(bench_dir, ["bm25"], ["overlap"], ["ndcg@10"],
                                        depth=100, rerank_k=5)
    reranked = results.systems[1]
    assert reranked.name == "bm25-lucene>overlap"
    runs, qrels = _api_runs(bench_dir)
    modes = read_modes(Benchmark(bench_dir))
    reranker = WordOverlapReranker()
    docs = {d.doc_id: d for d in Benchmark(bench_dir).corpus()}
    mode_runs = {m: reranker.rerank(modes[m][0], docs, Run("bm25", runs[m]), 5).scores
                 for m in ("og", "changed", "reversed")}
    expected = infosearch.wise(mode_runs["og"], mode_runs["changed"], mode_runs["reversed"],
                               qrels["og"], qrels["changed"], k=20)
    got = reranked.tasks["infosearch"]["per_query"]
    assert {q: v["wise"] for q, v in got.items()} == pytest.approx(expected, abs=1e-12)
    assert results.runs["bm25-lucene>overlap.reversed"].scores == mode_runs["reversed"]
