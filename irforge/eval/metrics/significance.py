"""Uncertainty and significance over per-query values: bootstrap CIs, paired t-test, paired
randomization test, Holm correction. Pure functions; every random draw comes from ``seed``.

Conventions: two-sided tests on the mean per-query difference; the randomization test flips
the sign of each query's difference (Fisher's paired permutation), enumerating all 2^n sign
vectors when n <= ``EXACT_MAX`` and drawing ``trials`` of them otherwise (p = (hits + 1) /
(trials + 1), so it is never 0); the bootstrap CI is the percentile interval of ``trials``
resampled means.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

EXACT_MAX = 16
_CHUNK = 1000


def paired_t_test(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of Student's paired t-test (what ``scipy.stats.ttest_rel`` gives)."""
    from scipy.stats import t as student_t

    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = diff.size
    if n < 2:
        return 1.0
    sd = diff.std(ddof=1)
    if sd == 0.0:
        return 1.0 if diff.mean() == 0.0 else 0.0
    statistic = diff.mean() / (sd / math.sqrt(n))
    return float(2.0 * student_t.sf(abs(statistic), n - 1))


def randomization_test(a: Sequence[float], b: Sequence[float], trials: int = 10_000,
                       seed: int = 0) -> float:
    """Two-sided p-value of the paired randomization (sign-flip permutation) test."""
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = diff.size
    if n == 0:
        return 1.0
    observed = abs(diff.mean()) - 1e-12 * max(1.0, abs(diff.mean()))  # float-safe ">="
    if n <= EXACT_MAX:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        return float(np.mean(np.abs(signs @ diff / n) >= observed))
    rng = np.random.default_rng(seed)
    hits, done = 0, 0
    while done < trials:
        size = min(_CHUNK, trials - done)
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2.0 - 1.0
        hits += int(np.sum(np.abs(signs @ diff / n) >= observed))
        done += size
    return (hits + 1) / (trials + 1)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1), input order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def bootstrap_ci(values: Sequence[float], trials: int = 1000, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean (resampling queries with replacement)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    means = np.concatenate([
        data[rng.integers(0, data.size, size=(min(_CHUNK, trials - done), data.size))]
        .mean(axis=1) for done in range(0, trials, _CHUNK)])
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return (float(low), float(high))


@dataclass(frozen=True)
class Comparison:
    """Two systems on one metric over the queries both have values for."""

    metric: str
    system_a: str
    system_b: str
    queries: int
    mean_a: float
    mean_b: float
    t_test_p: float
    randomization_p: float
    t_test_p_holm: float = 1.0
    randomization_p_holm: float = 1.0

    def to_json(self) -> dict:
        return asdict(self)


def compare_systems(values: Mapping[str, Mapping[str, Mapping[str, float]]], metric: str,
                    trials: int = 10_000, seed: int = 0) -> list[Comparison]:
    """Every pair of systems on ``metric`` (``values[system][metric][query] = v``), with Holm
    correction over the pairs of that metric (a family per metric)."""
    names = [name for name in values if values[name].get(metric)]
    raw = []
    for first, second in itertools.combinations(names, 2):
        a, b = values[first][metric], values[second][metric]
        common = sorted(set(a) & set(b))
        xs, ys = [a[q] for q in common], [b[q] for q in common]
        raw.append(Comparison(metric, first, second, len(common),
                              float(np.mean(xs)) if xs else math.nan,
                              float(np.mean(ys)) if ys else math.nan,
                              paired_t_test(xs, ys), randomization_test(xs, ys, trials, seed)))
    t_holm = holm([c.t_test_p for c in raw])
    r_holm = holm([c.randomization_p for c in raw])
    return [Comparison(**{**asdict(c), "t_test_p_holm": t, "randomization_p_holm": r})
            for c, t, r in zip(raw, t_holm, r_holm, strict=True)]
