"""Control items of the logical judge (``build logical --judge``), mixed in with real queries.

The judge scores how well a query follows its declared type (1-4). Controls reuse accepted
queries, whose triples code has already checked against their type:

- ``positive``: the query under its own type (expected: kept, score >= the bar);
- ``other-type``: the same query under a type of another shape (a different number of
  triples; expected: rejected, score below the bar);
- ``near-type``: the near-miss: the same query under a type with as many triples but another
  structure (2i read as 2p, 3i as pi; expected: rejected). A judge that only counts triples
  passes other-type controls and fails these. 1p has no such type and gets none.

Control items carry opaque ids, go through the same prompt in one shuffled run, and never enter
queries, judgments or failures. Blind spot: a positive's wording is checked by nobody, so a
judge that rightly rejects a badly worded query loses accuracy on it (errs towards untrusted).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from irforge.core.layouts.logical import LAYOUT
from irforge.generators.control_hook import (
    ByStep,
    Checked,
    ControlReport,
    JudgeSpec,
    judge_with_controls,
    report_judge,
)
from irforge.generators.control_hook import judge_entry as shared_entry
from irforge.generators.controls import POSITIVE, control_id
from irforge.generators.logical.steps import JUDGE_STEP, AcceptedQuery, judge_step
from irforge.generators.logical.types import TYPE_NAMES, get_type
from irforge.steps import StepOutcome, StepYield, reason_key
from irforge.steps.runner import BuildRunner
from irforge.validators.control_stats import StepFigures

OTHER_TYPE = "other-type"
NEAR_TYPE = "near-type"
JUDGE = "logical.judge"
#: the logical judge decides the kept queries, so its verdict covers the ``test`` qrels
SPEC = JudgeSpec(JUDGE, JUDGE_STEP, ("test",), LAYOUT.relative("controls"))


@dataclass(frozen=True)
class JudgeControl:
    """One control: the query as the judge will see it, its kind, the expected verdict and
    the real query it was made from."""

    item: AcceptedQuery
    kind: str
    expected: int
    query_id: str = ""

    def checked(self) -> Checked:
        """The control as the judge-control hook takes it; its log row names the real query,
        the declared type and the query's text."""
        plan = self.item.plan
        return Checked(self.item, self.kind, self.expected, {
            "control_id": plan.query_id, "query_id": self.query_id, "query":
            self.item.output.query, "type": plan.qtype, "kind": self.kind,
            "expected": self.expected})


def contrast_type(name: str) -> str:
    """A type of another shape than ``name`` (a different number of triples), with negation
    only where ``name`` has it, so the declared structure cannot fit the query."""
    own = get_type(name)
    shapes = [get_type(other) for other in TYPE_NAMES if other != name
              and get_type(other).edge_count != own.edge_count]
    same_negation = [t for t in shapes if t.has_negation == own.has_negation]
    return (same_negation or shapes)[0].name


def near_type(name: str) -> str | None:
    """A type with as many triples as ``name`` but another structure (negation alike where
    one exists), or None where there is none (1p)."""
    own = get_type(name)
    same = [get_type(other) for other in TYPE_NAMES if other != name
            and get_type(other).edge_count == own.edge_count]
    alike = [t for t in same if t.has_negation == own.has_negation]
    chosen = (alike or same)[:1]
    return chosen[0].name if chosen else None


def judge_controls(accepted: Sequence[AcceptedQuery], seed: int = 0) -> list[JudgeControl]:
    """A positive, an other-type and (where one exists) a near-type control per query."""
    out = []
    for query in accepted:
        plan = query.plan
        kinds = [(POSITIVE, plan.qtype, 1), (OTHER_TYPE, contrast_type(plan.qtype), 0)]
        near = near_type(plan.qtype)
        if near is not None:
            kinds.append((NEAR_TYPE, near, 0))
        for kind, qtype, expected in kinds:
            cid = control_id(seed, plan.query_id, qtype, kind)
            out.append(JudgeControl(replace(query, plan=replace(plan, query_id=cid,
                                                                qtype=qtype)), kind, expected,
                                    plan.query_id))
    return out


def run_judge_with_controls(runner: BuildRunner, accepted: Sequence[AcceptedQuery],
                            min_score: int, seed: int = 0
                            ) -> tuple[StepOutcome, ControlReport]:
    """The judge step over real queries and controls in one shuffled run (the judge-control
    hook): the real items' outcome (controls removed from judgments, failures and the yield)
    and the controls' report."""
    controls = judge_controls(accepted, seed)
    step, ran = judge_step(), []

    def judge(mixed: list[AcceptedQuery]) -> ByStep:
        outcome = runner.ask(step, mixed)
        ran.append(outcome)
        return {JUDGE_STEP: {pos: outcome.accepted.get(item.plan.query_id)
                             for pos, item in enumerate(mixed)}}

    def read(_: str, __: int, value: Any) -> tuple[int | None, float | None]:
        return (None, None) if value is None else (int(value.score >= min_score),
                                                   float(value.score))

    _, report = judge_with_controls(judge, accepted, [c.checked() for c in controls], read,
                                    runner.engine, seed)
    outcome = ran[0]
    ids = {control.item.plan.query_id for control in controls}
    failures = [f for f in outcome.failures if f.item_id not in ids]
    real_accepted = {key: value for key, value in outcome.accepted.items() if key not in ids}
    step_yield = StepYield(JUDGE_STEP, len(accepted), len(real_accepted),
                           Counter(reason_key(f.reason) for f in failures),
                           outcome.yield_.samples)
    position = {query.plan.query_id: n for n, query in enumerate(accepted)}
    judgments = sorted((j for j in outcome.judgments if j.query_id not in ids),
                       key=lambda j: position.get(j.query_id, len(position)))
    return replace(outcome, accepted=real_accepted, failures=failures, yield_=step_yield,
                   judgments=judgments), report


def judge_entry(figures: StepFigures | None, model: str, demo_grade: bool,
                reasons: Sequence[str] = ("no query to make controls from",)
                ) -> dict[str, Any]:
    """The ``judge_controls.json`` entry of the logical judge (it decides the kept queries,
    so its verdict covers the ``test`` qrels), in the one shape of every judge."""
    return shared_entry(SPEC, [figures] if figures is not None else [], model, demo_grade,
                        reasons)


def report_controls(runner: BuildRunner, reports: Sequence[ControlReport] | None
                    ) -> dict[str, Any]:
    """Write the logical judge's control log and its ``judge_controls.json`` entry (``reports``
    None: controls were switched off); the entry."""
    report = reports[0] if reports else None
    engine = runner.engine
    model = report.model if report else str(getattr(engine, "model", ""))
    demo = report.demo_grade if report else bool(getattr(engine, "demo_grade", False))
    figures = next(iter(report.figures), None) if report else None
    entry = judge_entry(figures, model, demo, ["controls were switched off "
                                               "(--no-judge-controls)"] if reports is None
                        else ["no query to make controls from"])
    report_judge(runner, SPEC, entry, report.rows if report else [])
    return entry
