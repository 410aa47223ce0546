"""Turn several people's labels for one item into one label: majority vote with a tie-break rule."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

TieBreak = Callable[[list[float], Sequence[float]], float]


def _lower(tied: list[float], labels: Sequence[float]) -> float:
    return min(tied)


def _higher(tied: list[float], labels: Sequence[float]) -> float:
    return max(tied)


def _median(tied: list[float], labels: Sequence[float]) -> float:
    ordered = sorted(labels)
    middle = ordered[(len(ordered) - 1) // 2]
    return min(tied, key=lambda value: (abs(value - middle), value))


def _first(tied: list[float], labels: Sequence[float]) -> float:
    return next(label for label in labels if label in tied)


TIE_BREAKS: dict[str, TieBreak] = {
    "lower": _lower,
    "higher": _higher,
    "median": _median,
    "first": _first,
}


def majority_label(labels: Sequence[float], tie_break: str = "median") -> float:
    """Most frequent label; ties go to ``tie_break`` (lower, higher, median or first given).

    ``lower`` is the conservative choice for relevance (a disputed pair is not promoted);
    ``median`` picks the tied label closest to the median of all labels (the lower on a tie);
    ``first`` trusts the first annotator given (for example a senior adjudicator).
    """
    if not labels:
        raise ValueError("no labels to adjudicate")
    rule = TIE_BREAKS.get(tie_break)
    if rule is None:
        raise ValueError(f"unknown tie-break {tie_break!r}; use one of {sorted(TIE_BREAKS)}")
    counts = Counter(labels)
    top = max(counts.values())
    tied = sorted(value for value, count in counts.items() if count == top)
    return tied[0] if len(tied) == 1 else rule(tied, labels)
