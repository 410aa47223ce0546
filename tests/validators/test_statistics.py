"""Agreement and rank statistics equal the reference libraries on random data."""

from __future__ import annotations

import numpy as np
import pytest

from irforge.validators.bootstrap import bootstrap_ci
from irforge.validators.correlation import average_ranks, kendall_tau_b, spearman_rho
from irforge.validators.statistics import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
    ratings_to_counts,
)

SEEDS = range(12)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", SEEDS)
def test_cohen_kappa_equals_sklearn(weights: str | None, seed: int) -> None:
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, 60)
    b = np.where(rng.random(60) < 0.6, a, rng.integers(0, 4, 60))
    expected = cohen_kappa_score(a, b, weights=weights)
    assert cohen_kappa(a, b, weights=weights) == pytest.approx(expected, abs=1e-12)


def test_cohen_kappa_on_string_labels_and_extremes() -> None:
    from sklearn.metrics import cohen_kappa_score

    a = ["yes", "no", "no", "yes", "maybe", "no"]
    b = ["yes", "no", "yes", "yes", "no", "no"]
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0
    assert np.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    assert percent_agreement([1, 0, 1], [1, 1, 1]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="pair up"):
        cohen_kappa([1, 0], [1])
    with pytest.raises(ValueError, match="unknown weights"):
        cohen_kappa([1, 0], [1, 0], weights="cubic")  # type: ignore[arg-type]


def test_fleiss_kappa_on_the_textbook_example() -> None:
    # Fleiss (1971) style example: 10 items, 14 raters, 5 categories; kappa = 0.2099
    counts = np.array([
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ])
    assert fleiss_kappa(counts) == pytest.approx(0.20993, abs=1e-4)


@pytest.mark.parametrize("seed", SEEDS)
def test_fleiss_kappa_with_two_raters_equals_scotts_pi(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, 50)
    b = np.where(rng.random(50) < 0.5, a, rng.integers(0, 3, 50))
    counts = ratings_to_counts(np.stack([a, b], axis=1))
    observed = np.mean(a == b)
    shares = np.bincount(np.concatenate([a, b]), minlength=3) / 100
    scotts_pi = (observed - np.sum(shares**2)) / (1 - np.sum(shares**2))
    assert fleiss_kappa(counts) == pytest.approx(scotts_pi, abs=1e-12)


def test_fleiss_kappa_rejects_uneven_raters() -> None:
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss_kappa(np.array([[1, 1], [2, 1]]))


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", SEEDS)
def test_krippendorff_alpha_equals_package_with_missing_values(level: str, seed: int) -> None:
    import krippendorff

    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, 40).astype(float)
    data = np.stack([np.where(rng.random(40) < 0.7, truth, rng.integers(1, 6, 40))
                     for _ in range(4)])
    data[rng.random(data.shape) < 0.2] = np.nan
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(data, level) == pytest.approx(expected, abs=1e-10)


def test_krippendorff_alpha_ignores_units_with_one_rating() -> None:
    import krippendorff

    data = np.array([[1, 2, 3, np.nan], [1, 2, 2, 4], [np.nan, 2, 3, np.nan]])
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert krippendorff_alpha(data) == pytest.approx(expected)
    with pytest.raises(ValueError, match="unknown level"):
        krippendorff_alpha(data, "cosine")  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", SEEDS)
def test_kendall_and_spearman_equal_scipy_with_ties(seed: int) -> None:
    from scipy import stats

    rng = np.random.default_rng(seed)
    x = rng.integers(0, 8, 25).astype(float)
    y = x + rng.integers(-3, 4, 25)
    assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert np.allclose(average_ranks(x), stats.rankdata(x))


def test_rank_correlations_of_identical_and_reversed_rankings() -> None:
    scores = [0.9, 0.7, 0.5, 0.2]
    assert kendall_tau_b(scores, scores) == 1.0
    assert kendall_tau_b(scores, scores[::-1]) == -1.0
    assert spearman_rho(scores, scores[::-1]) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="nan"):
        kendall_tau_b([1.0, float("nan")], [1.0, 2.0])


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 200)
    b = np.where(rng.random(200) < 0.8, a, 1 - a)
    first = bootstrap_ci(cohen_kappa, a, b, n_resamples=300, seed=7)
    again = bootstrap_ci(cohen_kappa, a, b, n_resamples=300, seed=7)
    other = bootstrap_ci(cohen_kappa, a, b, n_resamples=300, seed=8)
    assert first == again
    assert first != other
    assert first.low < first.value < first.high
    assert first.resamples_used == 300


def test_bootstrap_drops_undefined_draws() -> None:
    estimate = bootstrap_ci(cohen_kappa, [1, 1, 1], [1, 1, 1], n_resamples=20, seed=0)
    assert np.isnan(estimate.value) and estimate.resamples_used == 0
    with pytest.raises(ValueError, match="same number"):
        bootstrap_ci(cohen_kappa, [1, 0], [1], n_resamples=5)
