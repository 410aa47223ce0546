"""An evaluation never drops another one's results silently, and export ships only the runs
the last evaluation wrote. Before, re-running eval on a method folder overwrote the run's
report and left its stale run file in eval/runs, which export then shipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irforge.core.errors import IrforgeError
from irforge.data.sample import write_seed_benchmark
from irforge.eval.outputs import OutputsInUseError, claim, earlier_results, owned_runs
from irforge.eval.report import write_outputs
from irforge.eval.runner import evaluate_benchmark
from irforge.export import export_benchmark

FAST = {"bootstrap": 20, "trials": 20}


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    write_seed_benchmark(tmp_path / "bench")
    return tmp_path / "bench"


def _eval(bench: Path, retriever: str, split: str = "test", replace: bool = False) -> dict:
    results = evaluate_benchmark(bench, [retriever], metrics=["ndcg@10"], split=split, **FAST)
    return write_outputs(results, bench / "eval", plots=False, replace=replace)


def test_a_second_eval_of_other_systems_is_refused_then_replaces_with_replace(
        bench: Path, tmp_path: Path) -> None:
    _eval(bench, "bm25")
    before = (bench / "eval" / "results.json").read_text()
    with pytest.raises(OutputsInUseError, match=r"systems bm25-lucene.*--replace"):
        _eval(bench, "bm25:okapi")
    assert (bench / "eval" / "results.json").read_text() == before  # nothing touched
    _eval(bench, "bm25")  # the same system again just updates it
    _eval(bench, "bm25:okapi", replace=True)
    assert sorted(p.name for p in (bench / "eval" / "runs").glob("*.trec")) == [
        "bm25-okapi.trec"]
    assert earlier_results(bench / "eval").systems == ("bm25-okapi",)
    exported = export_benchmark(bench, "trec", tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out" / "runs").iterdir()) == ["bm25-okapi.trec"]
    assert exported.counts["runs"] == 1


def test_another_split_is_another_evaluation(bench: Path) -> None:
    _eval(bench, "bm25")
    write_seed_benchmark(bench)  # qrels/test.tsv again; add a second split
    (bench / "qrels" / "human.tsv").write_text((bench / "qrels" / "test.tsv").read_text())
    with pytest.raises(OutputsInUseError, match="the 'test' split"):
        _eval(bench, "bm25", split="human")


def test_export_leaves_out_run_files_no_results_json_lists(bench: Path, tmp_path: Path) -> None:
    _eval(bench, "bm25")
    stale = bench / "eval" / "runs" / "old-system.trec"
    stale.write_text((bench / "eval" / "runs" / "bm25-lucene.trec").read_text())
    listed, others = owned_runs(bench / "eval")
    assert [p.name for p in listed] == ["bm25-lucene.trec"] and others == [stale]
    exported = export_benchmark(bench, "trec", tmp_path / "out")
    assert not (tmp_path / "out" / "runs" / "old-system.trec").exists()
    assert any("old-system.trec" in note for note in exported.notes)


def test_export_writes_only_into_a_new_or_empty_folder(bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "leftover.qrels").write_text("q 0 d 1\n")
    with pytest.raises(IrforgeError, match=r"already holds leftover\.qrels"):
        export_benchmark(bench, "trec", out)


def test_claim_on_a_folder_without_results_claims_nothing(tmp_path: Path) -> None:
    assert claim(tmp_path, "test", ["bm25"], replace=False) == []
    (tmp_path / "results.json").write_text(json.dumps({"not": "results"}))
    assert claim(tmp_path, "test", ["bm25"], replace=False) == []


def test_the_eval_command_refuses_then_replaces(bench: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from tests.test_collection import exit_of

    fast = ("--no-plots", "--bootstrap", "20", "--trials", "20", "-m", "ndcg@10")
    assert exit_of(capsys, "eval", bench, "-r", "bm25", *fast)[0] == 0
    code, output = exit_of(capsys, "eval", bench, "-r", "bm25:okapi", *fast)
    assert code == 2 and "pass --replace" in " ".join(output.split())
    code, output = exit_of(capsys, "eval", bench, "-r", "bm25:okapi", "--replace", *fast)
    assert code == 0, output
    assert earlier_results(bench / "eval").systems == ("bm25-okapi",)
