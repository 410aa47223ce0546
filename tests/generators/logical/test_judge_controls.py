"""The logical judge is tested on control items mixed into its step: each query under its own
type (keep) and under a type of another shape (reject). A judge that reads the declared type
passes; one that answers at random is caught; controls never reach judgments or failures."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.core.records import Failure
from irforge.generators.logical.build import judge_queries
from irforge.generators.logical.judge_controls import (
    OTHER_TYPE,
    contrast_type,
    judge_controls,
    judge_entry,
)
from irforge.generators.logical.types import TYPE_NAMES, get_type
from irforge.steps.runner import BuildRunner
from tests.generators.fake_engine import FakeEngine
from tests.generators.logical.test_build import accepted_pin


def _queries(n: int):
    pin = accepted_pin()
    return [replace(pin, plan=replace(pin.plan, query_id=f"lq-pin-{i:04d}")) for i in range(n)]


def test_contrast_types_have_another_shape() -> None:
    for name in TYPE_NAMES:
        other = get_type(contrast_type(name))
        assert other.name != name and other.edge_count != get_type(name).edge_count


def test_controls_are_opaque_and_declare_another_type() -> None:
    controls = judge_controls(_queries(2), seed=1)
    assert len(controls) == 4
    for control in controls:
        assert control.item.plan.query_id.startswith("i")
        assert "pin" not in control.item.plan.query_id
        assert (control.item.plan.qtype == "pin") == (control.kind != OTHER_TYPE)
        assert control.item.output == _queries(1)[0].output  # same query, same triples


def _run(answer):
    queries = _queries(6)
    engine = FakeEngine({"logical.judge": answer})
    runner = BuildRunner(engine, Benchmark(Path()), "logical")
    figures: list = []
    kept, rows, scores = judge_queries(runner, queries, 3, figures)
    return (queries, engine, kept, rows, scores, runner.yields, runner.ledger.failures,
            figures)


def test_a_judge_that_reads_the_declared_type_passes() -> None:
    queries, engine, kept, rows, scores, yields, failures, [figures] = _run(
        lambda item: {"score": 4 if item["type_name"] == "pin" else 1, "reason": "r"})
    assert len(engine.calls) == 18  # 6 real items and 12 controls, in one run
    order = [call[1]["type_name"] for call in engine.calls]
    assert order != sorted(order, key=lambda t: t != "pin")  # controls are shuffled in
    assert figures.accuracy == 1.0 and figures.auc == 1.0 and figures.trusted
    assert kept == queries and set(scores) == {q.plan.query_id for q in queries}
    assert {row.query_id for row in rows} == set(scores)  # no control in the judgments
    assert failures == []
    assert (yields.steps["logical.judge"].attempted, yields.steps["logical.judge"].accepted) \
        == (6, 6)
    entry = judge_entry(figures, "fake-model", False)
    assert entry["status"] == "trusted" and entry["qrels_splits"] == ["test"]


def test_a_random_judge_is_caught() -> None:
    rng = random.Random(5)
    *_, failures, [figures] = _run(lambda item: {"score": rng.randint(1, 4), "reason": "r"})
    assert not figures.trusted and figures.accuracy < 0.8
    entry = judge_entry(figures, "fake-model", False)
    assert entry["status"] == "untrusted" and "logical.judge: accuracy" in entry["lines"][0]
    assert all(isinstance(f, Failure) and f.item_id.startswith("lq-pin-") for f in failures)


def test_an_untrusted_logical_judge_exits_8_with_its_figures() -> None:
    import pytest

    from irforge.core.errors import UntrustedLabels
    from irforge.steps.judge_report import raise_if_untrusted

    *_, [figures] = _run(lambda item: {"score": 4, "reason": "looks fine"})  # always keeps
    entry = judge_entry(figures, "fake-model", True)
    assert entry["status"] == "untrusted" and figures.accuracy == 0.5
    with pytest.raises(UntrustedLabels, match="the logical judge failed its control items") as info:
        raise_if_untrusted(entry, "bench", "logical", "judge_controls.json")
    assert info.value.exit_code == 8 and "logical.judge: accuracy 0.50" in str(info.value)
