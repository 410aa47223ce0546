"""Bad input to ``irforge eval``: a clear error or a warning with counts, never a silent change
of a score, never a traceback."""

from __future__ import annotations

import json

import pytest

from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError, IrforgeError
from irforge.core.records import Doc, Qrel, Query, Run
from irforge.core.trec import read_trec_run, write_trec_run
from irforge.eval.metrics import EvaluationInputError
from irforge.eval.runner import evaluate_benchmark
from irforge.export import export_benchmark
from tests.eval.test_cli import irforge

DOCS = [Doc(f"d{i}", text) for i, text in enumerate(
    ["river flood warning", "sourdough bread starter", "glacier retreat alps", "chess opening"])]
QUERIES = [Query(f"q{i}", text) for i, text in enumerate(
    ["flood warning", "bread starter", "glacier alps"])]
QRELS = [Qrel(f"q{i}", f"d{i}", 1) for i in range(3)]
FAST = {"bootstrap": 20, "trials": 50}


def _bench(folder, docs=DOCS, queries=QUERIES, qrels=QRELS):
    bench = Benchmark(folder)
    bench.write_corpus(docs)
    bench.write_queries(queries)
    bench.write_qrels(qrels)
    return folder


@pytest.mark.parametrize("extra", [[Qrel("ghost-1", "d0", 1), Qrel("ghost-2", "d1", 1)],
                                   [Qrel("q0", "gone", 2)]])
def test_qrels_naming_unknown_queries_or_documents_are_refused_like_export(tmp_path, extra):
    """Issue 37: eval scored such a folder (exit 0) that export refused; both refuse now."""
    clean = evaluate_benchmark(_bench(tmp_path / "a"), metrics=["ndcg@10"], **FAST)
    assert clean.warnings == [] and clean.queries == 3
    dirty = _bench(tmp_path / "b", qrels=QRELS + extra)
    with pytest.raises(IrforgeError, match=rf"{len(extra)} qrel\(s\) name a query or document "
                                           r"that is not in the folder, e\.g\. \((ghost-1, d0|"
                                           r"q0, gone)\); run `irforge check .*` and fix it "
                                           r"before evaluating"):
        evaluate_benchmark(dirty, metrics=["ndcg@10"], **FAST)
    with pytest.raises(IrforgeError, match="before exporting"):
        export_benchmark(dirty, "trec", tmp_path / "out")


def test_small_corpus_depth_measures_are_warned(tmp_path):
    results = evaluate_benchmark(_bench(tmp_path), metrics=["recall@100", "ndcg@10"], **FAST)
    assert results.warnings == ["recall@100 on a corpus of 4 documents: every run holds the "
                                "whole corpus within the cutoff, so recall@100 cannot separate "
                                "systems by depth"]


def test_run_files_with_repeated_lines_or_non_finite_scores_are_errors(tmp_path):
    repeated = tmp_path / "repeated.trec"
    repeated.write_text("q0 Q0 d0 1 2.0 x\nq0 Q0 d1 2 1.0 x\nq0 Q0 d0 3 0.5 x\n")
    with pytest.raises(FormatError, match=r"repeated.trec:3: .*again \(first on line 1\); 1 "
                                          r"repeated line"):
        read_trec_run(repeated)
    for bad in ("nan", "inf", "-inf"):
        path = tmp_path / f"{bad}.trec"
        path.write_text(f"q0 Q0 d0 1 {bad} x\n")
        with pytest.raises(FormatError, match=f"{path}:1: field 'score': score '{bad}' is not"):
            read_trec_run(path)


def test_ids_with_whitespace_are_refused_before_writing_unreadable_runs(tmp_path):
    folder = _bench(tmp_path, docs=[*DOCS, Doc("bad id", "text")])
    with pytest.raises(EvaluationInputError, match=r"1 document id\(s\) .* \('bad id'\)"):
        evaluate_benchmark(folder, **FAST)
    with pytest.raises(FormatError, match="whitespace"):
        write_trec_run(tmp_path / "r.trec", Run("r", {"q": {"a b": 1.0}}))


def test_empty_corpus_and_colliding_names_through_the_cli(tmp_path):
    empty = tmp_path / "empty"
    Benchmark(empty).write_corpus([])
    Benchmark(empty).write_queries(QUERIES)
    Benchmark(empty).write_qrels(QRELS)
    done = irforge("eval", str(empty))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "holds no documents" in done.stderr

    folder = _bench(tmp_path / "b")
    run = tmp_path / "mine.trec"
    run.write_text("q0 Q0 d1 1 2.0 bm25-lucene\nq0 Q0 d0 2 1.0 bm25-lucene\n")
    done = irforge("eval", str(folder), "--run", str(run), "--metric", "mrr", "--trials", "50")
    assert done.returncode == 0, done.stderr
    assert "its tag 'bm25-lucene' is already a system's name; scored as 'run:bm25-lucene'" in (
        " ".join(done.stderr.split()))
    data = json.loads((folder / "eval" / "results.json").read_text())
    assert [s["name"] for s in data["systems"]] == ["bm25-lucene", "run:bm25-lucene"]
    assert data["systems"][1]["means"]["mrr"] == pytest.approx(0.5 / 3)
    assert sorted(p.name for p in (folder / "eval" / "runs").iterdir()) == [
        "bm25-lucene.trec", "run_bm25-lucene.trec"]
