"""Pure functions: ensemble the strategies' labels, turn scores into qrels, flag generated passages.

DisastIR 3.6 averages the three prompts' scores; ``mode``, ``median`` and ``majority`` are
offered for agreement studies. Qrels need integers, so a :class:`Binarization` decides how an
ensemble score becomes a qrel label: ``graded`` rounds half up (1.5 -> 2), ``>0`` / ``>=2``
give binary labels (DisastIR 4.2 binarizes at score > 0).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from irforge.core.errors import IrforgeError


def ensemble_mean(labels: Sequence[float]) -> float | None:
    """Arithmetic mean of the labels (DisastIR's ensemble)."""
    return float(statistics.fmean(labels)) if labels else None


def ensemble_median(labels: Sequence[float]) -> float | None:
    """Median; with an even count, the mean of the two middle labels."""
    return float(statistics.median(labels)) if labels else None


def ensemble_mode(labels: Sequence[float]) -> float | None:
    """Most frequent label; ties go to the lowest tied label (the conservative choice)."""
    if not labels:
        return None
    counts = Counter(labels)
    best = max(counts.values())
    return float(min(label for label, count in counts.items() if count == best))


def ensemble_majority(labels: Sequence[float]) -> float | None:
    """The label more than half the strategies gave; None when no label has a majority."""
    if not labels:
        return None
    label, count = Counter(labels).most_common(1)[0]
    return float(label) if count * 2 > len(labels) else None


ENSEMBLES: dict[str, Callable[[Sequence[float]], float | None]] = {
    "mean": ensemble_mean,
    "median": ensemble_median,
    "mode": ensemble_mode,
    "majority": ensemble_majority,
}


def get_ensemble(name: str) -> Callable[[Sequence[float]], float | None]:
    """An ensemble function by name."""
    if name not in ENSEMBLES:
        raise IrforgeError(f"unknown ensemble {name!r}; choose one of {sorted(ENSEMBLES)}")
    return ENSEMBLES[name]


def round_half_up(value: float) -> int:
    """Round to the nearest integer, halves upward (2.5 -> 3), unlike Python's round()."""
    return math.floor(value + 0.5)


_RULE = re.compile(r"^(>=|>)\s*(\d+(?:\.\d+)?)$")


@dataclass(frozen=True)
class Binarization:
    """How an ensemble score becomes a qrel label: ``graded`` or a threshold like ``>0``."""

    spec: str = "graded"

    def __post_init__(self) -> None:
        if self.spec != "graded" and not _RULE.match(self.spec.strip()):
            raise IrforgeError(f"binarization {self.spec!r} not understood; use 'graded', "
                               "'>T' or '>=T' (for example '>0' or '>=2')")

    def label(self, score: float) -> int:
        """The qrel label for one ensemble score."""
        if self.spec == "graded":
            return round_half_up(score)
        match = _RULE.match(self.spec.strip())
        assert match is not None  # checked in __post_init__
        operator, threshold = match.group(1), float(match.group(2))
        passed = score > threshold if operator == ">" else score >= threshold
        return int(passed)


def is_flagged(graded_label: int, top_label: int) -> bool:
    """Consistency filter: a generated passage whose ensemble label is below the top is flagged."""
    return graded_label < top_label
