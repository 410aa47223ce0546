"""System-ranking agreement: Kendall's tau between rankings under two qrels or query sets.

DisastIR (Section 4.3) ranks 30 retrievers by nDCG@10 on human-written and on LLM-written
queries and reports Kendall's tau = 0.93. Here the two rankings come either from two eval
results files or from TREC runs scored against two qrels files (or two query subsets).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from irforge.core.errors import FormatError, Problem
from irforge.core.records import Run
from irforge.validators.bootstrap import Estimate, bootstrap_ci
from irforge.validators.correlation import kendall_tau_b, spearman_rho


@dataclass(frozen=True)
class RankingComparison:
    """Two rankings of the same systems and how well they agree."""

    metric: str
    systems: list[str]
    scores_a: list[float]
    scores_b: list[float]
    kendall: Estimate
    spearman: float

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "systems": self.systems, "scores_a": self.scores_a,
                "scores_b": self.scores_b, "kendall_tau_b": self.kendall.as_dict(),
                "spearman": self.spearman}


def compare_rankings(scores_a: Mapping[str, float], scores_b: Mapping[str, float],
                     metric: str = "", n_resamples: int = 1000, seed: int = 0) -> RankingComparison:
    """Kendall's tau-b (bootstrap CI over systems) and Spearman on the systems both sides scored."""
    systems = sorted(set(scores_a) & set(scores_b))
    if len(systems) < 2:
        raise ValueError(f"need at least two systems scored on both sides, got {systems}; "
                         "check that the system names match")
    first = np.asarray([scores_a[name] for name in systems], dtype=float)
    second = np.asarray([scores_b[name] for name in systems], dtype=float)
    kendall = bootstrap_ci(kendall_tau_b, first, second, n_resamples=n_resamples, seed=seed)
    return RankingComparison(metric, systems, first.tolist(), second.tolist(), kendall,
                             spearman_rho(first, second))


def _metric_value(path: Path, system: str, value: Any, metric: str) -> float:
    if isinstance(value, Mapping):
        if metric not in value:
            raise FormatError(Problem(path, f"system {system!r} has no metric {metric!r}",
                                      field=metric, hint=f"available: {sorted(value)}"))
        value = value[metric]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FormatError(Problem(path, f"score of {system!r} is not a number: {value!r}",
                                  field=metric))
    return float(value)


def load_results(path: Path, metric: str) -> dict[str, float]:
    """Read system scores from an eval results JSON.

    Accepted shapes: ``{system: {metric: value}}``, ``{system: value}``,
    ``{"systems"|"results": {...}}`` or a list of ``{"system"|"name": ..., metric: value}``.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise FormatError(Problem(path, "file not found", hint="run `irforge eval` first")) from exc
    except json.JSONDecodeError as exc:
        raise FormatError(Problem(path, f"malformed JSON: {exc.msg}", line=exc.lineno)) from exc
    if isinstance(data, Mapping):
        for key in ("systems", "results"):
            if isinstance(data.get(key), Mapping | list):
                data = data[key]
                break
    if isinstance(data, list):
        rows = {}
        for position, row in enumerate(data):
            name = row.get("system", row.get("name")) if isinstance(row, Mapping) else None
            if name is None:
                raise FormatError(Problem(path, f"entry {position} has no 'system' or 'name'",
                                          field="system"))
            rows[str(name)] = row
        data = rows
    if not isinstance(data, Mapping) or not data:
        raise FormatError(Problem(path, "expected a mapping of system -> scores",
                                  hint="write {system: {metric: value}}"))
    return {str(name): _metric_value(path, str(name), value, metric)
            for name, value in data.items()}


def read_trec_run(path: Path) -> Run:
    """A TREC run file named after the file (the one shared reader, :mod:`irforge.core.trec`)."""
    from irforge.core.trec import read_trec_run as read_run

    return read_run(path, name=Path(path).stem)
