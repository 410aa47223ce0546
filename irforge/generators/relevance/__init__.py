"""Ensemble LLM relevance labels (DisastIR 3.6): three strategies, mean/mode ensemble, qrels."""

from __future__ import annotations

from irforge.generators.relevance.aggregate import ENSEMBLES, Binarization, get_ensemble
from irforge.generators.relevance.build import LabelReport, LabelSettings, label_benchmark
from irforge.generators.relevance.steps import Pair, check_cot_phase, cot_bounds
from irforge.generators.relevance.strategies import STRATEGIES

__all__ = [
    "ENSEMBLES",
    "STRATEGIES",
    "Binarization",
    "LabelReport",
    "LabelSettings",
    "Pair",
    "check_cot_phase",
    "cot_bounds",
    "get_ensemble",
    "label_benchmark",
]
