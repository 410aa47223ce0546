"""Chance-corrected agreement statistics: Cohen's kappa, Fleiss' kappa, Krippendorff's alpha.

Pure numpy functions. Conventions follow the reference libraries the tests compare against:
Cohen's kappa matches ``sklearn.metrics.cohen_kappa_score`` (weights use the positions of the
sorted labels), Krippendorff's alpha matches the ``krippendorff`` package. A statistic whose
expected disagreement is zero (every label identical) is undefined and returned as ``nan``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

KappaWeights = Literal["linear", "quadratic"] | None
AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]


def _as_1d(values: Sequence[object], name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    return array


def confusion_matrix(a: Sequence[object], b: Sequence[object],
                     labels: Sequence[object] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Counts of (label of a, label of b) over paired items; returns (matrix, labels)."""
    first, second = _as_1d(a, "a"), _as_1d(b, "b")
    if first.shape != second.shape:
        raise ValueError(f"a and b must pair up: {first.shape[0]} vs {second.shape[0]} items")
    classes = np.unique(np.concatenate([first, second])) if labels is None else np.asarray(labels)
    index = {value: position for position, value in enumerate(classes.tolist())}
    matrix = np.zeros((len(classes), len(classes)), dtype=float)
    for x, y in zip(first.tolist(), second.tolist(), strict=True):
        if x in index and y in index:
            matrix[index[x], index[y]] += 1
    return matrix, classes


def cohen_kappa(a: Sequence[object], b: Sequence[object], weights: KappaWeights = None,
                labels: Sequence[object] | None = None) -> float:
    """Cohen's kappa of two raters on the same items; unweighted, linear or quadratic weights."""
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"unknown weights {weights!r}; use None, 'linear' or 'quadratic'")
    observed, classes = confusion_matrix(a, b, labels)
    total = observed.sum()
    if total == 0:
        return float("nan")
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / total
    positions = np.arange(len(classes))
    distance = np.abs(positions[:, None] - positions[None, :]).astype(float)
    if weights is None:
        penalty = (distance > 0).astype(float)
    elif weights == "linear":
        penalty = distance
    else:
        penalty = distance**2
    denominator = float((penalty * expected).sum())
    if denominator == 0:
        return float("nan")
    return 1.0 - float((penalty * observed).sum()) / denominator


def percent_agreement(a: Sequence[object], b: Sequence[object]) -> float:
    """Share of items on which two raters give the same label."""
    first, second = _as_1d(a, "a"), _as_1d(b, "b")
    if first.shape != second.shape:
        raise ValueError(f"a and b must pair up: {first.shape[0]} vs {second.shape[0]} items")
    return float(np.mean(first == second)) if first.size else float("nan")


def fleiss_kappa(counts: np.ndarray) -> float:
    """Fleiss' kappa from an items x categories matrix of rater counts (same raters per item)."""
    table = np.asarray(counts, dtype=float)
    if table.ndim != 2 or table.shape[0] == 0:
        raise ValueError("counts must be a non-empty items x categories matrix")
    raters = table.sum(axis=1)
    if not np.all(raters == raters[0]) or raters[0] < 2:
        raise ValueError("every item needs the same number of ratings, at least 2; "
                         "use krippendorff_alpha for missing ratings")
    n = raters[0]
    per_item = (np.sum(table * table, axis=1) - n) / (n * (n - 1))
    shares = table.sum(axis=0) / table.sum()
    expected = float(np.sum(shares * shares))
    if expected == 1.0:
        return float("nan")
    return (float(per_item.mean()) - expected) / (1.0 - expected)


def ratings_to_counts(ratings: np.ndarray, labels: Sequence[object] | None = None) -> np.ndarray:
    """Turn an items x raters label matrix into the items x categories counts Fleiss needs."""
    table = np.asarray(ratings)
    classes = np.unique(table) if labels is None else np.asarray(labels)
    return np.stack([(table == value).sum(axis=1) for value in classes], axis=1)


def _distance(level: AlphaLevel, values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    builder = _DISTANCES.get(level)
    if builder is None:
        raise ValueError(f"unknown level {level!r}; use one of {sorted(_DISTANCES)}")
    return builder(values, totals)


def _nominal(values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    return (values[:, None] != values[None, :]).astype(float)


def _ordinal(values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    cumulative = np.concatenate([[0.0], np.cumsum(totals)])
    low = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
    high = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
    between = cumulative[high + 1] - cumulative[low]
    return (between - (totals[:, None] + totals[None, :]) / 2.0) ** 2


def _interval(values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    numeric = values.astype(float)
    return (numeric[:, None] - numeric[None, :]) ** 2


def _ratio(values: np.ndarray, totals: np.ndarray) -> np.ndarray:
    numeric = values.astype(float)
    sums = numeric[:, None] + numeric[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = ((numeric[:, None] - numeric[None, :]) / sums) ** 2
    return np.nan_to_num(out)


_DISTANCES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "nominal": _nominal,
    "ordinal": _ordinal,
    "interval": _interval,
    "ratio": _ratio,
}


def coincidence_matrix(reliability: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Krippendorff's value-by-value coincidences from a raters x units matrix (nan = missing)."""
    data = np.asarray(reliability, dtype=float)
    if data.ndim != 2:
        raise ValueError("reliability data must be a raters x units matrix")
    values = np.unique(data[~np.isnan(data)])
    index = np.searchsorted(values, np.nan_to_num(data, nan=values[0] if values.size else 0))
    counts = np.zeros((data.shape[1], len(values)))
    present = ~np.isnan(data)
    for rater in range(data.shape[0]):
        units = np.nonzero(present[rater])[0]
        np.add.at(counts, (units, index[rater, units]), 1)
    pairable = counts.sum(axis=1)
    keep = pairable >= 2
    counts, pairable = counts[keep], pairable[keep]
    outer = counts[:, :, None] * counts[:, None, :]
    outer[:, np.arange(len(values)), np.arange(len(values))] -= counts
    coincidences = (outer / (pairable - 1)[:, None, None]).sum(axis=0)
    return coincidences, values


def krippendorff_alpha(reliability: np.ndarray, level: AlphaLevel = "nominal") -> float:
    """Krippendorff's alpha of a raters x units matrix; ``nan`` marks a missing rating."""
    coincidences, values = coincidence_matrix(reliability)
    totals = coincidences.sum(axis=1)
    n = totals.sum()
    if values.size < 2 or n <= 1:
        return float("nan")
    distance = _distance(level, values, totals)
    expected = float((np.outer(totals, totals) * distance).sum())
    if expected == 0:
        return float("nan")
    return 1.0 - (n - 1) * float((coincidences * distance).sum()) / expected
