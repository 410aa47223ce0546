"""Cross-encoder reranking through sentence-transformers' CrossEncoder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from irforge.core.errors import require
from irforge.core.records import Doc, Query, Run
from irforge.eval.rerankers.base import pairs_for, run_from_pairs


class CrossEncoderReranker:
    """Score (query, document) pairs jointly with a cross-encoder (CPU or CUDA automatically)."""

    failed_calls = 0  # a local model either answers or raises

    def __init__(self, model: str, batch_size: int = 32, max_length: int = 512,
                 device: str | None = None) -> None:
        self.model_path, self.batch_size = model, batch_size
        self.max_length, self.device = max_length, device
        self.name = f"ce-{Path(model).name}"
        self._model = None

    def _load(self):
        if self._model is None:
            from irforge.eval.retrievers.dense import pick_device

            st = require("sentence_transformers", "eval")
            device = self.device or pick_device()[0]
            self._model = st.CrossEncoder(self.model_path, max_length=self.max_length,
                                          device=device)
        return self._model

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Raw cross-encoder scores (one per pair; higher is more relevant)."""
        if not pairs:
            return np.zeros(0)
        scores = self._load().predict(list(pairs), batch_size=self.batch_size,
                                      show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(scores, dtype=np.float64).reshape(len(pairs), -1)[:, -1]

    def rerank(self, queries: Sequence[Query], docs_by_id: Mapping[str, Doc], run: Run,
               k: int) -> Run:
        pairs = pairs_for(queries, run, k, docs_by_id)
        scores = self.score_pairs([(p[2], p[3]) for p in pairs])
        return run_from_pairs(self.name, queries, pairs, scores, run)
