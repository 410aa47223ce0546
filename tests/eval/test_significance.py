"""Significance and uncertainty: equal to scipy's paired t-test and to an enumerated exact
permutation test on small cases; Holm by hand; seeded bootstrap."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from irforge.eval.metrics.significance import (
    bootstrap_ci,
    compare_systems,
    holm,
    paired_t_test,
    randomization_test,
)


def _pairs(seed: int, n: int) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(seed)
    a = rng.choice([0.0, 0.25, 0.5, 1.0], size=n)  # ties and repeated values, like nDCG
    return a.tolist(), np.clip(a + rng.normal(0.1, 0.3, size=n), 0, 1).tolist()


def _enumerated(a: list[float], b: list[float]) -> float:
    diff = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(sum(diff) / len(diff))
    flips = list(itertools.product((1, -1), repeat=len(diff)))
    hits = sum(abs(sum(s * d for s, d in zip(signs, diff, strict=True)) / len(diff))
               >= observed - 1e-12 for signs in flips)
    return hits / len(flips)


@pytest.mark.parametrize("seed", range(5))
def test_t_test_equals_scipy_and_randomization_equals_the_exact_test(seed):
    a, b = _pairs(seed, 6 + seed)
    assert paired_t_test(a, b) == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-12)
    exact = _enumerated(a, b)
    assert randomization_test(a, b) == pytest.approx(exact, abs=1e-12)
    scipy_exact = stats.permutation_test((a, b), lambda x, y: np.mean(x - y),
                                         permutation_type="samples", n_resamples=np.inf)
    assert exact == pytest.approx(scipy_exact.pvalue, abs=1e-12)


def test_sampled_randomization_is_seeded_and_close_to_the_t_test_on_many_queries():
    a, b = _pairs(7, 200)
    first = randomization_test(a, b, trials=4000, seed=3)
    assert first == randomization_test(a, b, trials=4000, seed=3)
    assert 0 < first <= 1
    assert paired_t_test(a, a) == 1.0 and randomization_test(a, a, trials=100) == 1.0


def test_holm_by_hand():
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.5, 0.6]) == [1.0, 1.0]


def test_bootstrap_interval_is_seeded_and_holds_the_mean():
    values = _pairs(1, 50)[0]
    low, high = bootstrap_ci(values, trials=500, seed=4)
    assert (low, high) == bootstrap_ci(values, trials=500, seed=4)
    assert low <= float(np.mean(values)) <= high and low < high


def test_compare_systems_pairs_queries_and_corrects_per_metric():
    a, b = _pairs(2, 8)
    values = {"A": {"m": {f"q{i}": v for i, v in enumerate(a)}},
              "B": {"m": {f"q{i}": v for i, v in enumerate(b)}},
              "C": {"m": {f"q{i}": v for i, v in enumerate(b[:4])}}}
    rows = compare_systems(values, "m")
    assert [(r.system_a, r.system_b, r.queries) for r in rows] == [
        ("A", "B", 8), ("A", "C", 4), ("B", "C", 4)]
    assert rows[0].t_test_p == pytest.approx(stats.ttest_rel(a, b).pvalue)
    adjusted = holm([r.randomization_p for r in rows])
    assert [r.randomization_p_holm for r in rows] == pytest.approx(adjusted)
