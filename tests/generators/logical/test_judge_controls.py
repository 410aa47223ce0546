"""The logical judge is tested on control items mixed into its step: each query under its own
type (keep), under a type of another shape (reject) and under a type with as many triples but
another structure (the near-miss: reject). A judge that reads the declared type passes; one
that answers at random, or only counts triples, is caught; controls never reach judgments or
failures."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.core.records import Failure
from irforge.generators.logical.build import judge_queries
from irforge.generators.logical.judge_controls import (
    NEAR_TYPE,
    OTHER_TYPE,
    POSITIVE,
    contrast_type,
    judge_controls,
    judge_entry,
    near_type,
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


def test_near_types_have_as_many_triples_and_another_structure() -> None:
    for name in TYPE_NAMES:
        near = near_type(name)
        if name == "1p":
            assert near is None  # no other one-triple type
            continue
        assert near is not None and near != name
        assert get_type(near).edge_count == get_type(name).edge_count
    assert near_type("2i") == "2p" and near_type("pin") in {"3in", "inp"}


def test_controls_are_opaque_and_declare_another_type() -> None:
    controls = judge_controls(_queries(2), seed=1)
    assert len(controls) == 6
    assert sorted(c.kind for c in controls) == sorted([POSITIVE, OTHER_TYPE, NEAR_TYPE] * 2)
    for control in controls:
        assert control.item.plan.query_id.startswith("i")
        assert "pin" not in control.item.plan.query_id
        assert (control.item.plan.qtype == "pin") == (control.kind == POSITIVE)
        assert control.item.output == _queries(1)[0].output  # same query, same triples


def _run(answer):
    queries = _queries(6)
    engine = FakeEngine({"logical.judge": answer})
    runner = BuildRunner(engine, Benchmark(Path()), "logical")
    reports: list = []
    kept, rows, scores = judge_queries(runner, queries, 3, reports)
    return (queries, engine, kept, rows, scores, runner.yields, runner.ledger.failures,
            [figures for report in reports for figures in report.figures])


def test_a_judge_that_reads_the_declared_type_passes() -> None:
    queries, engine, kept, rows, scores, yields, failures, [figures] = _run(
        lambda item: {"score": 4 if item["type_name"] == "pin" else 1, "reason": "r"})
    assert len(engine.calls) == 24  # 6 real items and 18 controls, in one run
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


def test_a_judge_that_only_counts_triples_is_caught_by_near_types() -> None:
    three = get_type("pin").edge_count
    *_, [figures] = _run(lambda item: {"score": 4 if get_type(
        item["type_name"]).edge_count == three else 1, "reason": "r"})
    assert figures.by_kind[OTHER_TYPE]["accuracy"] == 1.0
    assert figures.by_kind[NEAR_TYPE]["accuracy"] == 0.0
    assert not figures.trusted
    assert any(reason.startswith("near-type accuracy 0.00") for reason in figures.reasons)
    assert "near-type 0/6" in figures.line()


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
    # 6 positives right, 6 other-type and 6 near-type controls wrong
    assert entry["status"] == "untrusted" and figures.accuracy == 6 / 18
    with pytest.raises(UntrustedLabels, match="the logical judge failed its control items") as info:
        raise_if_untrusted(entry, "bench", "logical", "judge_controls.json")
    assert info.value.exit_code == 8 and "logical.judge: accuracy 0.33" in str(info.value)
