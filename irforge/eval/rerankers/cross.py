"""Cross-encoder reranking through sentence-transformers' CrossEncoder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from irforge.core.errors import require
from irforge.core.records import Doc, Query, Run
from irforge.eval.rerankers.base import pairs_for, run_from_pairs

GPU_BATCH = 128  # pairs per forward pass on a GPU (32 on CPU)


class CrossEncoderReranker:
    """Score (query, document) pairs jointly with a cross-encoder, batched: CUDA in bf16/fp16
    when present, else CPU in fp32 (``device``/``dtype``, or ``--device``/``--dtype``)."""

    failed_calls = 0  # a local model either answers or raises

    def __init__(self, model: str, batch_size: int | None = None, max_length: int = 512,
                 device: str | None = None, dtype: str | None = None) -> None:
        from irforge.retrievers.device import current_options

        options = current_options()
        self.model_path, self.batch_size = model, batch_size
        self.max_length = max_length
        self.device, self.dtype = device or options.device, dtype or options.dtype
        self.name = f"ce-{Path(model).name}"
        self._model = None

    def _load(self):
        if self._model is None:
            from irforge.retrievers.device import placement, torch_dtype

            st = require("sentence_transformers", "eval")
            where = placement(self.device, self.dtype)
            self.batch_size = self.batch_size or (GPU_BATCH if where.device_class != "cpu"
                                                  else 32)
            self._model = st.CrossEncoder(self.model_path, max_length=self.max_length,
                                          device=where.device,
                                          model_kwargs={"dtype": torch_dtype(where.dtype)})
        return self._model

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Raw cross-encoder scores (one per pair; higher is more relevant)."""
        if not pairs:
            return np.zeros(0)
        model = self._load()
        scores = model.predict(list(pairs), batch_size=self.batch_size,
                                      show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(scores, dtype=np.float64).reshape(len(pairs), -1)[:, -1]

    def rerank(self, queries: Sequence[Query], docs_by_id: Mapping[str, Doc], run: Run,
               k: int) -> Run:
        pairs = pairs_for(queries, run, k, docs_by_id)
        scores = self.score_pairs([(p[2], p[3]) for p in pairs])
        return run_from_pairs(self.name, queries, pairs, scores, run)
