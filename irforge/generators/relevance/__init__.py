"""Ensemble LLM relevance labels (DisastIR 3.6): three strategies, mean/mode ensemble, qrels."""

from __future__ import annotations

from irforge.core.lazy import lazy_exports

# public name -> the submodule defining it, imported on first use (irforge/core/lazy.py)
_EXPORTS = {
    "Binarization": "aggregate",
    "ENSEMBLES": "aggregate",
    "LabelReport": "build",
    "LabelSettings": "build",
    "Pair": "steps",
    "STRATEGIES": "strategies",
    "check_cot_phase": "steps",
    "cot_bounds": "steps",
    "get_ensemble": "aggregate",
    "label_benchmark": "build",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
