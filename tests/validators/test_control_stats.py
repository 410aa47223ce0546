"""Judge-control statistics: AUC against sklearn, Wilson and DeLong against known values and
an independent implementation, and the trust verdict's thresholds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from irforge.validators.control_stats import (
    MIN_ACCURACY,
    delong_interval,
    judge_status,
    roc_auc,
    step_figures,
    wilson_interval,
)


@pytest.mark.parametrize("seed", range(6))
def test_auc_equals_sklearn_with_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=40)
    labels[:2] = [0, 1]
    scores = rng.integers(0, 4, size=40).astype(float)  # graded labels: many ties
    assert roc_auc(scores.tolist(), labels.tolist()) == pytest.approx(
        roc_auc_score(labels, scores))


def test_wilson_matches_published_values() -> None:
    # Newcombe (1998), table I: 81/263 -> 0.2553-0.3662; 0/10 -> 0-0.2775
    low, high = wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


def _fast_delong_variance(pos: np.ndarray, neg: np.ndarray) -> float:
    """Sun and Xu (2014): DeLong's variance from midranks (an independent implementation)."""
    def midranks(x: np.ndarray) -> np.ndarray:
        order = np.argsort(x, kind="mergesort")
        ranks = np.empty(len(x))
        sorted_x = x[order]
        i = 0
        while i < len(x):
            j = i
            while j < len(x) and sorted_x[j] == sorted_x[i]:
                j += 1
            ranks[order[i:j]] = 0.5 * (i + j - 1) + 1
            i = j
        return ranks

    m, n = len(pos), len(neg)
    tz = midranks(np.concatenate([pos, neg]))
    tx, ty = midranks(pos), midranks(neg)
    v01 = (tz[:m] - tx) / n
    v10 = 1.0 - (tz[m:] - ty) / m
    return float(np.var(v01, ddof=1) / m + np.var(v10, ddof=1) / n)


@pytest.mark.parametrize("seed", range(4))
def test_delong_interval_matches_the_midrank_algorithm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pos = rng.normal(1.0, 1.0, 15).round(1)
    neg = rng.normal(0.0, 1.0, 20).round(1)
    scores = np.concatenate([pos, neg]).tolist()
    labels = [1] * 15 + [0] * 20
    auc = roc_auc(scores, labels)
    half = 1.959963984540054 * math.sqrt(_fast_delong_variance(pos, neg))
    low, high = delong_interval(scores, labels)
    assert low == pytest.approx(max(0.0, auc - half))
    assert high == pytest.approx(min(1.0, auc + half))


def test_auc_needs_both_classes() -> None:
    with pytest.raises(ValueError, match="one positive and one negative"):
        roc_auc([1.0, 2.0], [1, 1])


def _figures(expected: list[int], decided: list[int | None]):
    scores = [None if d is None else float(d) for d in decided]
    return step_figures("relevance.ensemble", expected, decided, scores,
                        ["positive" if e else "other-document" for e in expected])


def test_a_judge_that_calls_everything_relevant_is_untrusted() -> None:
    expected = [1, 0] * 10
    figures = _figures(expected, [1] * 20)
    assert figures.accuracy == 0.5 and figures.auc == 0.5 and not figures.trusted
    assert judge_status(figures) == "untrusted"
    assert any("accuracy 0.50" in r for r in figures.reasons)
    assert "UNTRUSTED" in figures.line() and "10/20" in figures.line()


def test_a_correct_judge_is_trusted_and_unanswered_controls_count_as_wrong() -> None:
    expected = [1, 0] * 10
    figures = _figures(expected, list(expected))
    assert figures.trusted and figures.accuracy == 1.0 and figures.auc == 1.0
    assert judge_status(figures) == "trusted"
    missing = _figures(expected, [None] * 6 + expected[6:])
    assert missing.correct == 14 and missing.answered == 14
    assert missing.by_kind["positive"]["unanswered"] == 3


def test_too_few_controls_is_not_verified_unless_clearly_bad() -> None:
    few = _figures([1, 0, 1, 0], [1, 0, 1, 0])
    assert not few.trusted and judge_status(few) == "untested"
    assert any("too few answered controls" in r for r in few.reasons)
    bad = _figures([1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 0, 1])
    assert bad.accuracy_ci[1] < MIN_ACCURACY and judge_status(bad) == "untrusted"
