"""How well a judge tells control items apart: accuracy, AUC and their 95% intervals.

Pure functions. ``roc_auc`` equals ``sklearn.metrics.roc_auc_score`` (ties count one half);
``wilson_interval`` is the Wilson score interval of a proportion; ``delong_interval`` is the
DeLong (1988) normal interval of one AUC, from its structural components. With perfect
separation (AUC 0 or 1) DeLong's variance is zero and so is the interval's width: the minimum
control count of :func:`judge_verdict` is what guards small samples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile

# Thresholds a judge must pass on its controls for its labels to be trusted (docs/annotation.md).
MIN_CONTROLS = 8  # controls with an answer, both classes together
MIN_PER_CLASS = 3  # positives and negatives each
MIN_ACCURACY = 0.8  # point estimate of accuracy on controls
MIN_AUC = 0.8  # point estimate of the separation (AUC of the expected grade)
CHANCE = 0.5  # the lower ends of both 95% intervals must lie above chance
# per kind of control (positive, other-document, near-miss...) with MIN_PER_CLASS or more:
# the upper end of its accuracy interval must reach MIN_ACCURACY, so a judge that fails one
# kind (a lenient judge on near-misses) is caught even when the other kinds carry the mean


def wilson_interval(successes: int, total: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of ``successes / total``; ``(0.0, 1.0)`` when ``total`` is 0."""
    if total < 0 or not 0 <= successes <= total:
        raise ValueError(f"need 0 <= successes <= total, got {successes} of {total}")
    if total == 0:
        return 0.0, 1.0
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _split(scores: Sequence[float], labels: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(scores, dtype=float)
    truth = np.asarray(labels)
    if values.shape != truth.shape or values.ndim != 1:
        raise ValueError(f"scores and labels must pair up: {values.shape} vs {truth.shape}")
    if not set(np.unique(truth).tolist()) <= {0, 1}:
        raise ValueError("labels must be 0 (negative control) or 1 (positive control)")
    positives, negatives = values[truth == 1], values[truth == 0]
    if not len(positives) or not len(negatives):
        raise ValueError("AUC needs at least one positive and one negative control")
    return positives, negatives


def _kernel(positives: np.ndarray, negatives: np.ndarray) -> np.ndarray:
    """psi(x, y): 1 where a positive outscores a negative, 1/2 on a tie, else 0."""
    diff = positives[:, None] - negatives[None, :]
    return (diff > 0).astype(float) + 0.5 * (diff == 0)


def roc_auc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Probability that a positive control scores above a negative one (ties count 1/2)."""
    positives, negatives = _split(scores, labels)
    return float(_kernel(positives, negatives).mean())


def delong_interval(scores: Sequence[float], labels: Sequence[int],
                    z: float = Z95) -> tuple[float, float]:
    """DeLong's 95% normal interval of the AUC, clipped to [0, 1].

    Needs two positives and two negatives (the structural components' variances); with fewer
    the interval is the whole ``(0.0, 1.0)``.
    """
    positives, negatives = _split(scores, labels)
    psi = _kernel(positives, negatives)
    auc = float(psi.mean())
    if len(positives) < 2 or len(negatives) < 2:
        return 0.0, 1.0
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    variance = float(np.var(v10, ddof=1) / len(positives) + np.var(v01, ddof=1) / len(negatives))
    half = z * math.sqrt(max(variance, 0.0))
    return max(0.0, auc - half), min(1.0, auc + half)


@dataclass(frozen=True)
class StepFigures:
    """One judging step on its controls: counts, accuracy, AUC, intervals and the verdict."""

    step: str
    controls: int  # mixed in
    answered: int  # got a label from the judge (unanswered ones count as wrong for accuracy)
    positives: int
    negatives: int
    correct: int
    accuracy: float
    accuracy_ci: tuple[float, float]
    auc: float | None
    auc_ci: tuple[float, float] | None
    by_kind: dict[str, dict[str, Any]]
    trusted: bool
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["accuracy_ci"] = list(self.accuracy_ci)
        data["auc_ci"] = list(self.auc_ci) if self.auc_ci is not None else None
        data["reasons"] = list(self.reasons)
        return data

    def line(self) -> str:
        """``step: accuracy 0.50 [0.30, 0.70] (10/20), AUC 0.52 [0.30, 0.74]: UNTRUSTED ...``"""
        low, high = self.accuracy_ci
        text = (f"{self.step}: accuracy {self.accuracy:.2f} [{low:.2f}, {high:.2f}] "
                f"({self.correct}/{self.controls} controls)")
        if self.auc is not None and self.auc_ci is not None:
            text += f", AUC {self.auc:.2f} [{self.auc_ci[0]:.2f}, {self.auc_ci[1]:.2f}]"
        else:
            text += ", AUC n/a"
        if self.by_kind:
            text += f"; by kind: {kinds_line(self.by_kind)}"
        verdict = "trusted" if self.trusted else "UNTRUSTED: " + "; ".join(self.reasons)
        return f"{text}: {verdict}"


def judge_verdict(accuracy: float, accuracy_ci: tuple[float, float], auc: float | None,
                  auc_ci: tuple[float, float] | None, positives: int, negatives: int
                  ) -> tuple[str, ...]:
    """Reasons the labels cannot be trusted; empty when every threshold is met."""
    reasons = []
    if positives + negatives < MIN_CONTROLS or min(positives, negatives) < MIN_PER_CLASS:
        reasons.append(f"too few answered controls ({positives} positive, {negatives} "
                       f"negative; need {MIN_CONTROLS} with {MIN_PER_CLASS} of each)")
    if accuracy < MIN_ACCURACY:
        reasons.append(f"accuracy {accuracy:.2f} < {MIN_ACCURACY}")
    if accuracy_ci[0] <= CHANCE:
        reasons.append(f"accuracy interval reaches chance (low {accuracy_ci[0]:.2f} <= "
                       f"{CHANCE})")
    if auc is None or auc_ci is None:
        reasons.append("AUC undefined (controls of one class only)")
    else:
        if auc < MIN_AUC:
            reasons.append(f"AUC {auc:.2f} < {MIN_AUC}")
        if auc_ci[0] <= CHANCE:
            reasons.append(f"AUC interval reaches chance (low {auc_ci[0]:.2f} <= {CHANCE})")
    return tuple(reasons)


TRUSTED, UNTRUSTED, UNTESTED = "trusted", "untrusted", "untested"


def judge_status(figures: StepFigures) -> str:
    """``trusted`` (every threshold met), ``untested`` (too few controls to decide, and the
    accuracy interval still reaches the threshold) or ``untrusted``."""
    if figures.trusted:
        return TRUSTED
    few = (figures.positives + figures.negatives < MIN_CONTROLS
           or min(figures.positives, figures.negatives) < MIN_PER_CLASS)
    if few and figures.accuracy_ci[1] >= MIN_ACCURACY:
        return UNTESTED
    return UNTRUSTED


def kind_accuracy(kinds: Sequence[str], expected: Sequence[int],
                  decided: Sequence[int | None]) -> dict[str, dict[str, Any]]:
    """Per kind of control: count, correct, unanswered, accuracy and its Wilson interval."""
    by_kind: dict[str, dict[str, Any]] = {}
    for kind, e, d in zip(kinds, expected, decided, strict=True):
        row = by_kind.setdefault(kind, {"controls": 0, "correct": 0, "unanswered": 0})
        row["controls"] += 1
        row["correct"] += int(d is not None and d == e)
        row["unanswered"] += int(d is None)
    for row in by_kind.values():
        row["accuracy"] = row["correct"] / row["controls"]
        row["accuracy_ci"] = list(wilson_interval(row["correct"], row["controls"]))
    return by_kind


def kind_reasons(by_kind: dict[str, dict[str, Any]]) -> tuple[str, ...]:
    """Reasons from single kinds: one with enough controls whose accuracy interval stays
    below :data:`MIN_ACCURACY` (the judge surely fails that kind of item)."""
    return tuple(f"{kind} accuracy {row['accuracy']:.2f} ({row['correct']}/{row['controls']}; "
                 f"interval high {row['accuracy_ci'][1]:.2f} < {MIN_ACCURACY})"
                 for kind, row in sorted(by_kind.items())
                 if row["controls"] >= MIN_PER_CLASS and row["accuracy_ci"][1] < MIN_ACCURACY)


def kinds_line(by_kind: dict[str, dict[str, Any]]) -> str:
    """``positive 8/8, other-document 8/8, near-miss 0/8``: per-kind accuracy in one line."""
    return ", ".join(f"{kind} {row['correct']}/{row['controls']}"
                     for kind, row in sorted(by_kind.items(), key=lambda kv: _KIND_ORDER.get(
                         kv[0], len(_KIND_ORDER))))


_KIND_ORDER = {"positive": 0, "other-document": 1, "other-type": 1, "near-miss": 2,
               "near-type": 2}


def step_figures(step: str, expected: Sequence[int], decided: Sequence[int | None],
                 scores: Sequence[float | None], kinds: Sequence[str]) -> StepFigures:
    """Figures of one step: ``expected`` 1/0 per control, the judge's decision (1 relevant, 0
    not, None no answer), its score (the expected grade) and each control's kind."""
    if not len(expected) == len(decided) == len(scores) == len(kinds):
        raise ValueError("expected, decided, scores and kinds must have one entry per control")
    correct = sum(1 for e, d in zip(expected, decided, strict=True) if d is not None and d == e)
    total = len(expected)
    accuracy = correct / total if total else 0.0
    accuracy_ci = wilson_interval(correct, total)
    answered = [(e, s) for e, s in zip(expected, scores, strict=True) if s is not None]
    positives = sum(1 for e, _ in answered if e == 1)
    negatives = len(answered) - positives
    auc = auc_ci = None
    if positives and negatives:
        values = [float(s) for _, s in answered]
        truth = [int(e) for e, _ in answered]
        auc, auc_ci = roc_auc(values, truth), delong_interval(values, truth)
    by_kind = kind_accuracy(kinds, expected, decided)
    reasons = judge_verdict(accuracy, accuracy_ci, auc, auc_ci, positives, negatives)
    reasons += kind_reasons(by_kind)
    return StepFigures(step, total, len(answered), positives, negatives, correct, accuracy,
                       accuracy_ci, auc, auc_ci, by_kind, not reasons, reasons)
