"""Rank correlations for comparing system rankings: Kendall's tau-b and Spearman's rho.

Pure numpy; values equal ``scipy.stats.kendalltau`` (variant b) and ``scipy.stats.spearmanr``.
Kendall's tau is O(n^2) in memory, which is fine for system rankings (tens to hundreds).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _paired(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    first, second = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if first.ndim != 1 or first.shape != second.shape:
        raise ValueError(f"x and y must be 1-D and pair up: {first.shape} vs {second.shape}")
    if np.isnan(first).any() or np.isnan(second).any():
        raise ValueError("x and y must not contain nan; drop the missing systems first")
    return first, second


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b, which corrects for ties in either ranking."""
    first, second = _paired(x, y)
    if first.size < 2:
        return float("nan")
    upper = np.triu_indices(first.size, k=1)
    sign_x = np.sign(first[:, None] - first[None, :])[upper]
    sign_y = np.sign(second[:, None] - second[None, :])[upper]
    denominator = np.sqrt(float(np.sum(sign_x != 0)) * float(np.sum(sign_y != 0)))
    if denominator == 0:
        return float("nan")
    return float(np.sum(sign_x * sign_y)) / denominator


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks starting at 1, ties sharing their average rank (as scipy.stats.rankdata)."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(array, kind="mergesort")
    sorted_values = array[order]
    starts = np.concatenate([[True], sorted_values[1:] != sorted_values[:-1]])
    group = np.cumsum(starts) - 1
    first_position = np.nonzero(starts)[0]
    sizes = np.diff(np.concatenate([first_position, [array.size]]))
    mean_rank = first_position + (sizes + 1) / 2.0
    ranks = np.empty(array.size)
    ranks[order] = mean_rank[group]
    return ranks


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson correlation of the average ranks."""
    first, second = _paired(x, y)
    if first.size < 2:
        return float("nan")
    rank_x, rank_y = average_ranks(first), average_ranks(second)
    rank_x, rank_y = rank_x - rank_x.mean(), rank_y - rank_y.mean()
    denominator = np.sqrt(float(np.sum(rank_x**2)) * float(np.sum(rank_y**2)))
    if denominator == 0:
        return float("nan")
    return float(np.sum(rank_x * rank_y)) / denominator
