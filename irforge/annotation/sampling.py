"""Choose which items people see: random, stratified, disagreement-first, low-confidence first.

Every strategy is seeded and returns the same items for the same input, so a re-push with the
same settings selects the same items (and the stable item keys make it add nothing).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from irforge.annotation.items import AnnotationItem

Strategy = Callable[[Sequence[AnnotationItem], int, int, str | None, float], list[AnnotationItem]]


def _shuffled(items: Sequence[AnnotationItem], seed: int) -> list[AnnotationItem]:
    order = np.random.default_rng(seed).permutation(len(items))
    return [items[i] for i in order]


def sample_random(items: Sequence[AnnotationItem], n: int, seed: int, by: str | None = None,
                  threshold: float = 0.0) -> list[AnnotationItem]:
    """A uniform random sample without replacement."""
    return _shuffled(items, seed)[:n]


def sample_stratified(items: Sequence[AnnotationItem], n: int, seed: int, by: str | None = None,
                      threshold: float = 0.0) -> list[AnnotationItem]:
    """Equal shares per stratum value (round robin over shuffled strata), so small strata are
    represented; ``by`` is a metadata key (intent, type) or ``label`` (the binarized LLM label)."""
    if not by:
        raise ValueError("stratified sampling needs a stratum key: intent, type or label")
    groups: dict[str, list[AnnotationItem]] = defaultdict(list)
    for item in _shuffled(items, seed):
        value = (str(int(item.ensemble > threshold)) if by == "label"
                 else item.strata.get(by, "(none)"))
        groups[value].append(item)
    chosen: list[AnnotationItem] = []
    queues = [groups[value] for value in sorted(groups)]
    while len(chosen) < n and any(queues):
        for queue in queues:
            if queue and len(chosen) < n:
                chosen.append(queue.pop(0))
    return chosen


def sample_disagreement(items: Sequence[AnnotationItem], n: int, seed: int,
                        by: str | None = None, threshold: float = 0.0) -> list[AnnotationItem]:
    """Items where the prompt ensemble disagrees most (label range, then whether prompts fall on
    both sides of the binarization threshold); ties in random order."""
    def split(item: AnnotationItem) -> int:
        sides = {value > threshold for value in item.llm.values()}
        return int(len(sides) > 1)

    return sorted(_shuffled(items, seed), key=lambda i: (-split(i), -i.spread))[:n]


def sample_low_confidence(items: Sequence[AnnotationItem], n: int, seed: int,
                          by: str | None = None, threshold: float = 0.0) -> list[AnnotationItem]:
    """Lowest stated confidence first (``metadata.confidence``); items without one are ranked
    by how close the ensemble label lies to the binarization boundary."""
    def uncertainty(item: AnnotationItem) -> tuple[int, float]:
        if item.confidence is not None:
            return (0, item.confidence)
        return (1, abs(item.ensemble - (threshold + 0.5)))

    return sorted(_shuffled(items, seed), key=uncertainty)[:n]


STRATEGIES: dict[str, Strategy] = {
    "random": sample_random,
    "stratified": sample_stratified,
    "disagreement": sample_disagreement,
    "low-confidence": sample_low_confidence,
}


def select(items: Sequence[AnnotationItem], n: int, strategy: str = "random", seed: int = 0,
           by: str | None = None, threshold: float = 0.0) -> list[AnnotationItem]:
    """Pick ``n`` items with a named strategy."""
    function = STRATEGIES.get(strategy)
    if function is None:
        raise ValueError(f"unknown sampling strategy {strategy!r}; use one of {sorted(STRATEGIES)}")
    if n < 1:
        raise ValueError(f"the sample size must be positive, got {n}")
    return function(items, n, seed, by, threshold)
