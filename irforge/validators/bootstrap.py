"""Seeded percentile-bootstrap confidence intervals for any paired statistic."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Estimate:
    """A statistic with its bootstrap interval; ``resamples_used`` excludes undefined draws."""

    value: float
    low: float
    high: float
    confidence: float
    resamples_used: int

    def as_dict(self) -> dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high,
                "confidence": self.confidence, "resamples_used": self.resamples_used}


def bootstrap_ci(statistic: Callable[..., float], *samples: Sequence[object],
                 n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0) -> Estimate:
    """Resample items (rows shared by all samples) with replacement; percentile interval.

    Draws where the statistic is undefined (nan, e.g. kappa on one class) are dropped and
    counted in ``resamples_used``; with no defined draw the interval is nan.
    """
    if not samples:
        raise ValueError("give at least one sample")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be positive, got {n_resamples}")
    arrays = [np.asarray(sample) for sample in samples]
    size = arrays[0].shape[0]
    if any(array.shape[0] != size for array in arrays):
        raise ValueError("all samples must have the same number of items")
    value = float(statistic(*arrays)) if size else float("nan")
    if size == 0:
        return Estimate(value, float("nan"), float("nan"), confidence, 0)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_resamples):
        rows = rng.integers(0, size, size)
        draws.append(float(statistic(*(array[rows] for array in arrays))))
    defined = np.asarray([draw for draw in draws if not np.isnan(draw)])
    if defined.size == 0:
        return Estimate(value, float("nan"), float("nan"), confidence, 0)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    return Estimate(value, float(low), float(high), confidence, int(defined.size))
