"""The one hook that tests an LLM judge on control items: mixed into its run, scored apart,
reported in one entry shape. Relevance labeling and the logical judge both go through it.

:func:`judge_with_controls` shuffles the controls in with the real items (a judge cannot tell
them apart), runs the judge once on the mix, splits the outcomes back, scores the controls
per step (:func:`irforge.validators.control_stats.step_figures`) and returns the real items'
outcomes with a :class:`ControlReport`; :func:`report_judge` writes its control log and its
``judge_controls.json`` entry (:func:`judge_entry`) through the build's runner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.core.trust import record_judge
from irforge.generators.controls import mix
from irforge.steps.records import Records
from irforge.steps.runner import BuildRunner
from irforge.validators.control_stats import StepFigures, judge_status, step_figures

#: step -> {item index: that step's outcome for the item}; a step may leave an item out
ByStep = dict[str, dict[int, Any]]
#: (step, control index, the step's outcome or None) -> (decision 1/0 or None, score or None)
Reader = Callable[[str, int, Any], tuple[int | None, float | None]]


@dataclass(frozen=True)
class JudgeSpec:
    """Which judge: its ``judge_controls.json`` entry, the step whose figures decide, the
    qrels splits its verdict covers, and its control log (relative to the folder)."""

    name: str
    deciding: str
    splits: tuple[str, ...]
    log: str


@dataclass(frozen=True)
class Checked:
    """One control as its judge sees it: the item, its kind, the verdict expected (1: keep or
    relevant) and what the control log keeps of it."""

    item: Any
    kind: str
    expected: int
    record: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ControlReport:
    """The figures per step, one log row per control, and who judged."""

    figures: list[StepFigures]
    rows: list[dict[str, Any]]
    model: str
    demo_grade: bool

    def entry(self, spec: JudgeSpec, reasons: Sequence[str] = ()) -> dict[str, Any]:
        """The judge's ``judge_controls.json`` entry (``reasons`` when no control ran)."""
        return judge_entry(spec, self.figures, self.model, self.demo_grade, reasons)


def judge_with_controls(judge: Callable[[list[Any]], ByStep], real: Sequence[Any],
                        controls: Sequence[Checked], read: Reader, engine: Any, seed: int = 0,
                        derived: Callable[[ByStep], ByStep] | None = None
                        ) -> tuple[ByStep, ControlReport]:
    """Run ``judge`` once on ``real`` and ``controls`` shuffled together; the real items'
    outcomes by step (indexes of ``real``) and the controls' report. ``derived`` adds steps
    computed from the controls' outcomes (the relevance ensemble); ``read`` turns a step's
    outcome for one control into its decision and score."""
    order = mix(len(real), len(controls), seed)
    outcomes = judge([controls[i].item if is_control else real[i] for is_control, i in order])

    def split(want: bool) -> ByStep:
        return {step: dict(sorted(((order[pos][1], value) for pos, value in by.items()
                                   if order[pos][0] == want), key=lambda kv: kv[0]))
                for step, by in outcomes.items()}

    checked = split(True)
    answers = [value for by in checked.values() for value in by.values()]
    model = next((str(m) for m in (getattr(v, "model", None) for v in answers) if m),
                 str(getattr(engine, "model", "")))
    demo = any(bool(getattr(v, "demo_grade", False)) for v in answers) or \
        bool(getattr(engine, "demo_grade", False))
    if derived is not None:
        checked.update(derived(checked))
    figures, rows = score_controls(controls, checked, read)
    return split(False), ControlReport(figures, rows, model, demo)


def score_controls(controls: Sequence[Checked], checked: ByStep, read: Reader
                   ) -> tuple[list[StepFigures], list[dict[str, Any]]]:
    """Figures per step over the controls it answered or left out, and each control's log row
    (its record and its score per step, by the step's last name part)."""
    if not controls:
        return [], []
    rows = [{**control.record, "labels": {}} for control in controls]
    figures = []
    for step, by in checked.items():
        asked = [i for i in range(len(controls)) if i in by]
        if not asked:
            continue
        read_out = [read(step, i, by[i]) for i in asked]
        for i, (_, score) in zip(asked, read_out, strict=True):
            rows[i]["labels"][step.rpartition(".")[2]] = score
        figures.append(step_figures(step, [controls[i].expected for i in asked],
                                    [decided for decided, _ in read_out],
                                    [score for _, score in read_out],
                                    [controls[i].kind for i in asked]))
    return figures, rows


def judge_entry(spec: JudgeSpec, figures: Sequence[StepFigures], model: str, demo_grade: bool,
                reasons: Sequence[str] = ()) -> dict[str, Any]:
    """The ``judge_controls.json`` entry, one shape for every judge: status from the deciding
    step, every step's figures; ``reasons`` say why when no control was scored."""
    decider = next((f for f in figures if f.step == spec.deciding), None)
    status = judge_status(decider) if decider is not None else "untested"
    why = list(decider.reasons) if decider is not None else \
        list(reasons or ["no control was labeled"])
    return {"status": status, "trusted": status == "trusted", "reasons": why,
            "deciding_step": spec.deciding, "qrels_splits": list(spec.splits),
            "model": model, "demo_grade": demo_grade, "controls_file": spec.log,
            "lines": [f.line() for f in figures], "steps": {f.step: f.to_json() for f in figures}}


def report_judge(runner: BuildRunner, spec: JudgeSpec, entry: Mapping[str, Any],
                 rows: Sequence[Mapping[str, Any]] = ()) -> None:
    """Write the control log (through the runner) and the folder's judge entry."""
    runner.write(Records(files={spec.log: rows}))
    record_judge(runner.bench.root, spec.name, entry)
