"""The one build runner: shared gates, one ledger, redacted writes, one manifest layout, and
one finish (a budget stop before an empty result) for every method."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.core.errors import BudgetStopped, EmptyResultError
from irforge.core.records import Failure
from irforge.steps import Step
from irforge.steps.gates import QueryGates
from irforge.steps.runner import MANIFEST_KEYS, BuildRunner
from tests.generators.fake_engine import FakeEngine


class Asked(BaseModel):
    query: str


QUERIES = {"river": "when does the river flood in spring",
           "flood": "when does the river flood in spring",  # the same query again
           "levee": "how are levees inspected after a storm",
           "leak": "why are levee walls cracking sk-abcdefghijklmnopqrstuvwx"}

STEP = Step(name="t.query", template="demo.keywords", output_model=Asked,
            variables=lambda doc: {"title": doc, "text": doc}, item_id=lambda doc: doc,
            queries_of=lambda doc, value: [value.query])


def _engine() -> FakeEngine:
    return FakeEngine({"demo.keywords": lambda item: {"query": QUERIES[item["title"]]}})


def test_two_runners_sharing_the_gates_reject_a_query_once_naming_the_first(tmp_path):
    gates = QueryGates(language=None)
    first = BuildRunner.open(_engine(), tmp_path / "a", "a", gates)
    second = BuildRunner.open(_engine(), tmp_path / "b", "b", gates)
    assert set(first.run(STEP, ["river", "levee"])) == {"river", "levee"}
    assert set(second.run(STEP, ["flood"])) == set()
    [failure] = second.ledger.failures
    assert failure.reason.startswith("rejected: gate duplicate")
    assert "t.query item river" in failure.reason
    assert second.yields.steps["t.query"].rejected == Counter({"rejected: gate duplicate": 1})


def test_a_build_gates_against_the_queries_already_in_its_folder(tmp_path):
    bench = tmp_path / "b"
    bench.mkdir()
    (bench / "queries.jsonl").write_text(json.dumps(
        {"_id": "old", "text": QUERIES["levee"]}) + "\n", encoding="utf-8")
    runner = BuildRunner.open(_engine(), bench, "b")
    assert runner.run(STEP, ["levee"]) == {}
    assert "benchmark query old" in runner.ledger.failures[0].reason
    rerun = BuildRunner.open(_engine(), bench, "b")
    rerun.use_gates(language="en", keep=lambda query_id: query_id != "old")  # it rewrites old
    assert set(rerun.run(STEP, ["levee"])) == {"levee"}


def test_the_gate_hook_and_the_judge_hook_see_every_item(tmp_path):
    seen: list[str] = []
    runner = BuildRunner.open(_engine(), tmp_path, "b", QueryGates(language=None))
    runner.gate_checks.append(lambda query, source: "gate storm: no storms" if "storm" in query
                              else None)
    runner.judge_hooks.append(lambda step, items: seen.extend(items) or [*items, "river"])
    accepted = runner.judge(STEP, ["levee"])
    assert seen == ["levee"] and set(accepted) == {"river"}  # the hook's item was judged too
    assert runner.ledger.failures[0].reason == "rejected: gate storm: no storms"


def test_a_later_rejection_moves_one_accepted_item_and_results_keep_the_llm_result(tmp_path):
    runner = BuildRunner.open(_engine(), tmp_path, "b", QueryGates(language=None))
    runner.run(STEP, ["river", "levee"])
    assert runner.result("t.query", "river").raw == json.dumps({"query": QUERIES["river"]})
    runner.ledger.reject("t.query", Failure("t.query", "river", "rejected: judge said no"))
    step = runner.yields.steps["t.query"]
    assert (step.attempted, step.accepted, dict(step.rejected)) == (
        2, 1, {"rejected: judge said no": 1})


def test_logs_are_redacted_and_the_manifest_has_the_one_layout(tmp_path):
    runner = BuildRunner.open(_engine(), tmp_path, "b", QueryGates(language=None))
    runner.gate_checks.append(lambda query, source: "gate leak: a key" if "sk-" in query else None)
    runner.run(STEP, ["leak"])
    runner.write_logs()
    text = (tmp_path / "failures.jsonl").read_text(encoding="utf-8")
    assert "sk-abcdefghijklmnopqrstuvwx" not in text and "***" in text
    entry = runner.record("a method", {"n": 1}, {"queries": 0})
    assert tuple(entry) == MANIFEST_KEYS
    assert json.loads((tmp_path / "manifest.json").read_text())["steps"]["b"]["config"] == {
        "n": 1}


@dataclass
class _Total:
    items: int = 3
    statuses: Counter = field(default_factory=lambda: Counter({"ok": 1, "skipped": 2}))


@dataclass
class _StoppedEngine:
    total: _Total = field(default_factory=_Total)
    budget_stopped: bool = True
    budget_usd: float = 0.01

    def summary(self) -> str:
        return "1 ok, 2 skipped"


def test_finish_says_budget_before_empty_and_empty_before_success(tmp_path: Path):
    stopped = BuildRunner.open(_StoppedEngine(), tmp_path, "b")
    with pytest.raises(BudgetStopped) as budget:
        stopped.finish(0, "queries")
    assert budget.value.exit_code == 4
    empty = BuildRunner.open(_engine(), tmp_path, "b", QueryGates(language=None))
    empty.run(STEP, ["river"])
    empty.ledger.reject("t.query", Failure("t.query", "river", "rejected: judge said no"))
    with pytest.raises(EmptyResultError, match="0 queries accepted") as nothing:
        empty.finish(0, "queries")
    assert nothing.value.exit_code == 3 and "judge said no" in str(nothing.value)
    empty.finish(1, "queries")  # something kept: no error


def test_a_method_language_other_than_the_runs_gates_is_refused(tmp_path):
    from irforge.core.errors import IrforgeError

    runner = BuildRunner.open(_engine(), tmp_path, "multicon", QueryGates(language="en"))
    assert runner.use_gates(language="en").language == "en"
    with pytest.raises(IrforgeError, match="language 'de' differs from the run's query gates"):
        runner.use_gates(language="de")
