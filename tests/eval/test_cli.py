"""``irforge eval``: outputs on a real ComLQ sample folder, and clear errors on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Qrel
from irforge.core.trec import read_trec_run

ROOT = Path(__file__).resolve().parents[2]


def irforge(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run([sys.executable, "-m", "irforge", *args], capture_output=True,
                          text=True, env=env, timeout=600)


@pytest.fixture(scope="module")
def bench(comlq_sample, tmp_path_factory):
    docs, queries, qrels = comlq_sample
    folder = tmp_path_factory.mktemp("bench")
    bench = Benchmark(folder)
    bench.write_corpus(docs)
    bench.write_queries(queries)
    bench.write_qrels([Qrel(q, d, g) for q, grades in qrels.items() for d, g in grades.items()])
    return folder


def test_eval_writes_runs_results_table_plots_and_report(bench):
    done = irforge("eval", str(bench), "--retriever", "bm25", "--retriever", "bm25:okapi",
                   "--metric", "ndcg@10", "--metric", "recall@100", "--metric", "judged@10")
    assert done.returncode == 0, done.stderr
    assert "bm25-lucene" in done.stdout and "ndcg@10" in done.stdout
    out = bench / "eval"
    results = json.loads((out / "results.json").read_text())
    assert [s["name"] for s in results["systems"]] == ["bm25-lucene", "bm25-okapi"]
    system = results["systems"][0]
    assert set(system["means"]) == {"ndcg@10", "recall@100", "judged@10"}
    assert len(system["per_query"]) == 80
    assert {"1p", "2in"} <= set(system["per_group"])
    run = read_trec_run(out / "runs" / "bm25-lucene.trec")
    assert len(run.scores) == 80
    assert all(len(docs) == 100 for docs in run.scores.values())
    report = (out / "report.md").read_text()
    assert "ndcg@10 per type" in report and "radar" in report
    assert (out / "plots" / "radar.png").stat().st_size > 1000
    assert "<table>" in (out / "report.html").read_text()
    again = irforge("eval", str(bench), "--metric", "ndcg@10", "--run",
                    str(out / "runs" / "bm25-lucene.trec"), "--out", str(bench / "eval2"))
    assert again.returncode == 0, again.stderr
    both = json.loads((bench / "eval2" / "results.json").read_text())["systems"]
    assert both[0]["means"]["ndcg@10"] == pytest.approx(both[1]["means"]["ndcg@10"])


def test_unknown_metric_is_a_clear_error(bench):
    done = irforge("eval", str(bench), "--metric", "ndgc@10")
    assert done.returncode == 2
    assert "unknown metric 'ndgc'" in done.stderr


def test_run_with_documents_outside_the_corpus_names_file_and_line(bench, tmp_path):
    known = next(Benchmark(bench).corpus()).doc_id
    run = tmp_path / "bad.trec"
    run.write_text(f"0 Q0 {known} 1 2.0 x\n0 Q0 no-such-doc 2 1.0 x\n")
    done = irforge("eval", str(bench), "--retriever", "bm25", "--run", str(run))
    assert done.returncode == 2
    message = " ".join(done.stderr.split())
    assert f"{run}:2" in message and "'no-such-doc' is not in the corpus" in message


def test_empty_qrels_is_a_clear_error(bench, tmp_path):
    empty = tmp_path / "empty"
    Benchmark(empty).write_corpus(list(Benchmark(bench).corpus())[:3])
    Benchmark(empty).write_qrels([])
    done = irforge("eval", str(empty))
    assert done.returncode == 2
    assert "has no qrels" in done.stderr


def test_the_same_plot_is_the_same_file(tmp_path: Path) -> None:
    """A re-run writes byte-identical plots (no random SVG ids, no date): an interrupted eval
    or demo that runs again ends where a clean run does."""
    from irforge.eval.plots import _pyplot, _save

    plt = _pyplot()
    files = []
    for name in ("a", "b"):
        figure = plt.figure()
        plt.plot([1, 2, 3], [3, 1, 2])
        _save(figure, tmp_path / f"{name}.png")
        plt.close(figure)
        files.append(((tmp_path / f"{name}.png").read_bytes(),
                      (tmp_path / f"{name}.svg").read_bytes()))
    assert files[0] == files[1] and b"<svg" in files[0][1]
