"""Whether a benchmark separates the systems it evaluates: a warning where it does not.

Two systems whose means each lie inside the other's 95% bootstrap interval are not told apart
by this query set (11 queries, nDCG@10 0.86 against 0.89, say): a reader must not rank them
by it. Pure functions over the evaluated systems' means and intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, Protocol


class _System(Protocol):
    name: str
    means: Mapping[str, float]
    ci: Mapping[str, Sequence[float]]


def within_each_other(mean_a: float, ci_a: Sequence[float], mean_b: float,
                      ci_b: Sequence[float]) -> bool:
    """Whether each mean lies inside the other's interval."""
    return ci_b[0] <= mean_a <= ci_b[1] and ci_a[0] <= mean_b <= ci_a[1]


def unseparated(systems: Sequence[_System], metric: str) -> list[tuple[str, str]]:
    """Pairs of systems (in the given order) the metric does not separate."""
    out = []
    for a, b in combinations(systems, 2):
        if metric in a.means and metric in b.means and metric in a.ci and metric in b.ci \
                and within_each_other(a.means[metric], a.ci[metric], b.means[metric],
                                      b.ci[metric]):
            out.append((a.name, b.name))
    return out


def separation_warnings(systems: Sequence[_System], metrics: Sequence[str], queries: int,
                        significance: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """One warning per metric whose systems lie within each other's 95% interval, naming
    the pairs with their means, intervals and (when tested) the randomization p."""
    by_id = {s.name: s for s in systems}
    tested = {(r["metric"], r["system_a"], r["system_b"]): r for r in significance}
    warnings = []
    for metric in metrics:
        pairs = unseparated(systems, metric)
        if not pairs:
            continue
        shown = []
        for a, b in pairs:
            sa, sb = by_id[a], by_id[b]
            row = tested.get((metric, a, b)) or tested.get((metric, b, a))
            p = f", p = {row['randomization_p']:.2g}" if row else ""
            shown.append(f"{a} {sa.means[metric]:.3f} [{sa.ci[metric][0]:.3f}, "
                         f"{sa.ci[metric][1]:.3f}] and {b} {sb.means[metric]:.3f} "
                         f"[{sb.ci[metric][0]:.3f}, {sb.ci[metric][1]:.3f}]{p}")
        warnings.append(f"{metric}: the benchmark does not separate {'; '.join(shown)}: each "
                        f"mean lies within the other's 95% interval on {queries} queries; do "
                        "not rank these systems by it (more queries, or queries that differ "
                        "in form and wording, would)")
    return warnings
