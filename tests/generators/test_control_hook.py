"""The one judge-control hook: control items mixed into a judge's run, scored apart and
reported in one entry shape, for relevance labeling and the logical judge alike."""

from __future__ import annotations

import ast
from pathlib import Path

import irforge
from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl
from irforge.core.trust import read_judges
from irforge.generators.control_hook import (
    Checked,
    ControlReport,
    JudgeSpec,
    judge_entry,
    judge_with_controls,
)
from irforge.generators.logical.judge_controls import report_controls as logical_report
from irforge.generators.relevance.controls import report_controls as relevance_report
from irforge.generators.relevance.settings import LabelSettings
from irforge.steps.runner import BuildRunner
from tests.generators.fake_engine import FakeEngine
from tests.generators.logical.test_judge_controls import _run

PACKAGE = Path(irforge.__file__).resolve().parent
SPEC = JudgeSpec("toy", "toy.final", ("test",), "toy/controls.jsonl")


def _yes_if_even(mixed: list[int]) -> dict[str, dict[int, int]]:
    """A toy judge: it says 1 to an even item; its first step sees every item, its second
    (a strategy some items' intent lacks) only those over 10."""
    return {"toy.first": {pos: int(item % 2 == 0) for pos, item in enumerate(mixed)},
            "toy.final": {pos: int(item % 2 == 0) for pos, item in enumerate(mixed)
                          if item > 10}}


def _read(_: str, __: int, value: int | None) -> tuple[int | None, float | None]:
    return (None, None) if value is None else (value, float(value))


def test_controls_are_mixed_in_scored_apart_and_the_real_outcomes_come_back_in_order() -> None:
    real = [1, 2, 3, 14]
    controls = [Checked(20 + n, "positive" if n % 2 == 0 else "other", int(n % 2 == 0),
                        {"control_id": f"c{n}"}) for n in range(10)]
    seen: list[list[int]] = []

    def judge(mixed: list[int]) -> dict[str, dict[int, int]]:
        seen.append(mixed)
        return _yes_if_even(mixed)

    outcomes, report = judge_with_controls(judge, real, controls, _read, FakeEngine({}), seed=3)
    assert len(seen) == 1 and sorted(seen[0]) == sorted([*real, *(c.item for c in controls)])
    assert seen[0][:4] != real  # shuffled in, not appended
    assert outcomes == {"toy.first": {0: 0, 1: 1, 2: 0, 3: 1}, "toy.final": {3: 1}}
    assert [f.step for f in report.figures] == ["toy.first", "toy.final"]
    assert all(f.controls == 10 and f.accuracy == 1.0 for f in report.figures)
    assert report.rows[0] == {"control_id": "c0", "labels": {"first": 1.0, "final": 1.0}}
    entry = report.entry(SPEC)
    assert entry["deciding_step"] == "toy.final" and entry["controls_file"] == SPEC.log
    assert entry["steps"]["toy.final"]["controls"] == 10


def test_a_derived_step_is_scored_and_no_control_leaves_the_judge_untested() -> None:
    controls = [Checked(20 + n, "positive", 1) for n in range(4)]
    _, report = judge_with_controls(
        _yes_if_even, [1], controls, _read, FakeEngine({}),
        derived=lambda checked: {"toy.sum": {i: 1 for i in checked["toy.first"]}})
    assert [f.step for f in report.figures] == ["toy.first", "toy.final", "toy.sum"]
    _, none = judge_with_controls(_yes_if_even, [1, 2], [], _read, FakeEngine({}))
    assert none.figures == [] and none.rows == []
    entry = none.entry(SPEC, ["controls were switched off"])
    assert entry["status"] == "untested" and entry["reasons"] == ["controls were switched off"]


def test_both_judges_report_through_the_hook_in_one_entry_shape(tmp_path: Path) -> None:
    *_, [figures] = _run(lambda item: {"score": 4 if item["type_name"] == "pin" else 1,
                                       "reason": "r"})
    engine = FakeEngine({})
    runner = BuildRunner(engine, Benchmark(tmp_path), "logical")
    rows = [{"control_id": f"i{n}", "labels": {"judge": 4.0}} for n in range(18)]
    logical = logical_report(runner, [ControlReport([figures], rows, "m", False)])
    relevance = relevance_report(BuildRunner(engine, Benchmark(tmp_path), "relevance"),
                                 ControlReport([], [], "m", False), LabelSettings(), False)
    judges = read_judges(tmp_path)
    assert judges["logical.judge"] == logical and judges["relevance"] == relevance
    assert set(logical) == set(relevance) == set(judge_entry(SPEC, [], "m", False))
    assert logical["status"] == "trusted" and relevance["status"] == "untested"
    assert logical["controls_file"] == "logical/controls.jsonl"
    assert len(list(iter_jsonl(tmp_path / "logical" / "controls.jsonl"))) == 18
    off = logical_report(runner, None)
    assert off["reasons"] == ["controls were switched off (--no-judge-controls)"]


def test_only_the_hook_mixes_controls_in_and_no_judge_runs_a_step_itself() -> None:
    """Control items are mixed in at one place; every judge step goes through the runner."""
    found: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / "generators").rglob("*.py")):
        calls = {ast.unparse(node.func) for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Call)}
        if called := calls & {"mix", "run_step"}:
            found[path.relative_to(PACKAGE).as_posix()] = called
    assert found == {"generators/control_hook.py": {"mix"}}
