"""Evaluation: metrics, retrievers, rerankers, decomposition pipelines and reports."""

from __future__ import annotations

from irforge.eval.metrics import evaluate, evaluate_per_query, mean_scores, parse_metric

__all__ = ["evaluate", "evaluate_per_query", "mean_scores", "parse_metric"]
