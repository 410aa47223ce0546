"""Metrics as pure functions found by name: the trec measures and the papers' measures."""

from __future__ import annotations

from irforge.eval.metrics import papers as _papers  # noqa: F401  (the papers' measures)
from irforge.eval.metrics import trec as _trec  # noqa: F401  (registers the trec measures)
from irforge.eval.metrics.evaluate import (
    EvaluationInputError,
    evaluate,
    evaluate_per_query,
    mean_scores,
)
from irforge.eval.metrics.registry import (
    REGISTRY,
    Measure,
    UnknownMetricError,
    parse_metric,
    parse_metrics,
)

__all__ = [
    "REGISTRY",
    "EvaluationInputError",
    "Measure",
    "UnknownMetricError",
    "evaluate",
    "evaluate_per_query",
    "mean_scores",
    "parse_metric",
    "parse_metrics",
]
