"""Stage-aware decomposition (stage_aware_decomposition.txt): decomposers, fusion, pipelines."""

from __future__ import annotations

from irforge.eval.pipelines.decompose import (
    AdaptiveDecomposer,
    Decomposer,
    FixedSizeDecomposer,
    NaiveDecomposer,
    get_decomposer,
)
from irforge.eval.pipelines.fusion import FUSIONS, rrf, score_sum
from irforge.eval.pipelines.stages import (
    decomposed_retrieve,
    first_stage_diagnostics,
    plain_rerank,
    stage_aware_rerank,
)

__all__ = ["FUSIONS", "AdaptiveDecomposer", "Decomposer", "FixedSizeDecomposer",
           "NaiveDecomposer", "decomposed_retrieve", "first_stage_diagnostics",
           "get_decomposer", "plain_rerank", "rrf", "score_sum", "stage_aware_rerank"]
