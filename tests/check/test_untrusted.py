"""`irforge check` names qrels labelled by a judge that failed its control items."""

from __future__ import annotations

from pathlib import Path

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Qrel, Query
from irforge.core.trust import controls_path, record_judge


def _bench(root: Path) -> Benchmark:
    bench = Benchmark(root)
    bench.write_corpus([Doc("d0", "Spring tides come near the new moon and the full moon.",
                            "Tides"),
                        Doc("d1", "Greyboard stiffens the boards of a case binding.", "Covers")])
    bench.write_queries([Query("q0", "When do spring tides come?")])
    bench.write_qrels([Qrel("q0", "d0", 2)])
    return bench


def test_untrusted_qrels_are_a_problem_with_the_judges_figures(tmp_path: Path) -> None:
    assert check_benchmark(_bench(tmp_path).root).ok  # the same folder, no judge record
    record_judge(tmp_path, "relevance", {"status": "untrusted", "trusted": False,
                                         "qrels_splits": ["test"],
                                         "lines": ["zero_shot: accuracy 0.40 [0.17, 0.69]"]})
    report = check_benchmark(tmp_path)
    [problem] = report.problems
    assert problem.field == "judge" and problem.path.name == "test.tsv"
    assert "judge relevance" in problem.message and "accuracy 0.40" in problem.message
    assert "irforge label --model" in problem.hint


def test_trusted_labels_or_other_splits_are_no_problem(tmp_path: Path) -> None:
    _bench(tmp_path)
    record_judge(tmp_path, "relevance", {"status": "trusted", "trusted": True,
                                         "qrels_splits": ["test"]})
    record_judge(tmp_path, "logical", {"status": "untrusted", "trusted": False,
                                       "qrels_splits": ["human"]})
    assert check_benchmark(tmp_path).ok


def test_a_broken_controls_file_is_reported_not_raised(tmp_path: Path) -> None:
    _bench(tmp_path)
    controls_path(tmp_path).write_text("{not json", encoding="utf-8")
    [problem] = check_benchmark(tmp_path).problems
    assert problem.path.name == "judge_controls.json" and "not valid JSON" in problem.message
