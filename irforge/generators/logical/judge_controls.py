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

from irforge.generators.controls import POSITIVE, control_id, mix
from irforge.generators.logical.steps import JUDGE_STEP, AcceptedQuery, judge_step
from irforge.generators.logical.types import TYPE_NAMES, get_type
from irforge.llm.protocol import EngineLike
from irforge.steps import StepOutcome, StepYield, reason_key, run_step
from irforge.validators.control_stats import StepFigures, judge_status, step_figures

OTHER_TYPE = "other-type"
NEAR_TYPE = "near-type"
JUDGE = "logical.judge"


@dataclass(frozen=True)
class JudgeControl:
    """One control: the query as the judge will see it, its kind and the expected verdict."""

    item: AcceptedQuery
    kind: str
    expected: int


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
                                                                qtype=qtype)), kind, expected))
    return out


def run_judge_with_controls(engine: EngineLike, accepted: Sequence[AcceptedQuery],
                            min_score: int, seed: int = 0
                            ) -> tuple[StepOutcome, StepFigures | None]:
    """The judge step over real queries and controls in one shuffled run: the real items'
    outcome (controls removed from judgments, failures and the yield) and the figures."""
    controls = judge_controls(accepted, seed)
    order = mix(len(accepted), len(controls), seed)
    items = [controls[i].item if is_control else accepted[i] for is_control, i in order]
    outcome = run_step(engine, judge_step(), items)
    ids = {control.item.plan.query_id for control in controls}
    failures = [f for f in outcome.failures if f.item_id not in ids]
    real_accepted = {key: value for key, value in outcome.accepted.items() if key not in ids}
    step_yield = StepYield(JUDGE_STEP, len(accepted), len(real_accepted),
                           Counter(reason_key(f.reason) for f in failures),
                           outcome.yield_.samples)
    position = {query.plan.query_id: n for n, query in enumerate(accepted)}
    judgments = sorted((j for j in outcome.judgments if j.query_id not in ids),
                       key=lambda j: position.get(j.query_id, len(position)))
    real = replace(outcome, accepted=real_accepted, failures=failures, yield_=step_yield,
                   judgments=judgments)
    if not controls:
        return real, None
    scores = [outcome.accepted.get(c.item.plan.query_id) for c in controls]
    figures = step_figures(JUDGE_STEP, [c.expected for c in controls],
                           [None if s is None else int(s.score >= min_score) for s in scores],
                           [None if s is None else float(s.score) for s in scores],
                           [c.kind for c in controls])
    return real, figures


def judge_entry(figures: StepFigures | None, model: str, demo_grade: bool) -> dict[str, Any]:
    """The ``judge_controls.json`` entry of the logical judge (it decides the kept queries,
    so its verdict covers the ``test`` qrels)."""
    status = judge_status(figures) if figures is not None else "untested"
    return {"status": status, "trusted": status == "trusted",
            "reasons": list(figures.reasons) if figures else ["no query to make controls from"],
            "deciding_step": JUDGE_STEP, "qrels_splits": ["test"], "model": model,
            "demo_grade": demo_grade, "lines": [figures.line()] if figures else [],
            "steps": {JUDGE_STEP: figures.to_json()} if figures else {}}
