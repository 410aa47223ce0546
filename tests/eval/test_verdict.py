"""The report's first lines: per method, kept queries, rejections by reason, judges, verdict."""

from __future__ import annotations

from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Failure, Qrel, Query
from irforge.core.trust import record_judge
from irforge.eval.verdict import DEMO_LABEL, method_verdicts, truth_lines, verdict_text


def test_verdict_text_says_why() -> None:
    assert verdict_text(0, {}) == "not usable: no query kept"
    assert verdict_text(5, {"relevance": "untrusted"}) == (
        "not usable: judge relevance failed its control items")
    assert verdict_text(5, {"relevance": "untested"}).startswith("usable with care")
    assert verdict_text(5, {"relevance": "trusted"}) == "usable"


def test_method_verdicts_count_kept_and_rejected_and_name_the_judge(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path)
    bench.write_corpus([Doc("d0", "text"), Doc("d1", "more text")])
    bench.write_queries([
        Query("g0", "a generated query", {"generated_by": "intents", "demo_grade": True}),
        Query("g1", "an unjudged generated query", {"generated_by": "intents"}),
        Query("h0", "a hand-written query", {"hand_written": True})])
    bench.write_qrels([Qrel("g0", "d0", 2), Qrel("h0", "d1", 1)])
    bench.add_failures([Failure("intents.query", "t1", "rejected: gate copy: copies 14 words"),
                        Failure("intents.query", "t2", "rejected: gate copy: copies 12 words"),
                        Failure("intents.needs", "t3", "llm invalid: bad JSON")])
    record_judge(tmp_path, "relevance", {"status": "untrusted", "trusted": False,
                                         "qrels_splits": ["test"], "demo_grade": True,
                                         "model": "embedded", "lines": ["ensemble: ..."]})
    verdicts = {v.method: v for v in method_verdicts(tmp_path)}
    intents = verdicts["intents"]
    assert intents.kept == 1 and sum(intents.rejected.values()) == 3
    assert intents.rejected["rejected: gate copy"] == 2
    assert intents.judges == {"relevance": "untrusted"} and intents.demo_grade
    line = intents.line()
    assert line.startswith("intents: kept 1, rejected 3 (rejected: gate copy 2")
    assert "not usable: judge relevance failed its control items" in line and DEMO_LABEL in line
    assert verdicts["hand-written"].kept == 1
    lines = truth_lines(tmp_path)
    assert lines[0] == "judge relevance (embedded (DEMO GRADE model)): UNTRUSTED: failed its " \
        "controls"
    assert list(method_verdicts(tmp_path, "human")) and not truth_lines(tmp_path, "human")[0] \
        .startswith("judge")  # the judge labelled test only


def test_a_method_whose_queries_do_not_name_it_is_named_by_the_folder(tmp_path: Path) -> None:
    """Logical, MultiConIR and InfoSearch queries carry no ``generated_by``: the folder's
    manifest names the method, so its rejections are counted against it (not 'unknown: 0')."""
    bench = Benchmark(tmp_path)
    bench.write_corpus([Doc("d0", "text")])
    bench.write_queries([Query("q0", "Which tool is lent for three days?", {"type": "1p"})])
    bench.write_qrels([Qrel("q0", "d0", 1)])
    bench.add_failures([Failure("logical.query", "t1", "rejected: answer: not in passages")])
    bench.record_step("logical", {"attempted": 2, "accepted": 1})
    [verdict] = method_verdicts(tmp_path)
    assert verdict.line().startswith("logical: kept 1, rejected 1 (rejected: answer 1)")
