"""Dense encoding as a pipeline: parallel fast tokenisation, token-budget batches, device overlap.

Texts are sorted by length (longest first, so an out-of-memory batch shows up at once) and cut
into chunks; worker threads tokenize the chunks with the model's Rust tokenizer (it releases the
GIL), sort each chunk by exact token length and pack it into batches whose padded size
``rows x longest`` stays within a token budget. On a GPU the batches are put in pinned host
memory and copied without blocking, so the next chunk is tokenized while the card computes.
Vectors come back float32 in input order, L2-normalised when asked. Models whose first module
is not a transformer with a fast tokenizer (or that add a prompt of their own) are encoded by
sentence-transformers' ``encode`` with the same batch size instead.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from irforge.core.errors import require
from irforge.core.models import sentence_transformer
from irforge.retrievers.device import Placement, batch_defaults, torch_dtype

log = logging.getLogger(__name__)
_MODELS: dict[tuple[str, str, str], object] = {}
FLUSH_ROWS = 65_536  # vectors kept on the device before one copy back to the host


def load_sentence_model(name_or_path: str, where: Placement):
    """Load (once per process) a SentenceTransformer on a device, in a precision."""
    key = (name_or_path, where.device, where.dtype)
    if key not in _MODELS:
        model = sentence_transformer(name_or_path, where.device,
                                     model_kwargs={"dtype": torch_dtype(where.dtype)})
        model.eval()
        _MODELS[key] = model
    return _MODELS[key]


def pack_batches(lengths: Sequence[int], batch_size: int, batch_tokens: int) -> list[list[int]]:
    """Positions of ``lengths`` (sorted longest first) grouped so each batch holds at most
    ``batch_size`` rows and ``rows x longest <= batch_tokens`` (a longer row goes alone)."""
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for position, length in enumerate(lengths):
        rows = len(current) + 1
        if current and (rows > batch_size or rows * max(longest, length) > batch_tokens):
            batches.append(current)
            current, longest = [], 0
        current.append(position)
        longest = max(longest, length)
    if current:
        batches.append(current)
    return batches


# texts whose token ids the pipeline must reproduce before it is trusted with a model
PROBES = ("  Leading and trailing spaces \n", "UPPER lower Ünïcode — text", "", "word " * 600)


@dataclass(frozen=True)
class TokenPlan:
    """How the model's first module tokenizes: its Rust tokenizer and the settings it uses."""

    serialized: str
    max_length: int | None
    lowercase: bool
    pad_id: int
    pad_left: bool
    input_names: tuple[str, ...]
    strip: bool = False
    extras: tuple[tuple[str, object], ...] = ()  # non-tensor features (ST 6: modality)


def _plain_text_module(first) -> bool:
    """A transformer that only reads text, for embeddings (no chat template, no expansion)."""
    modalities = getattr(first, "modality_config", None)
    if modalities is not None and set(modalities) != {"text"}:
        return False
    if getattr(first, "transformer_task", "feature-extraction") != "feature-extraction":
        return False
    return getattr(first, "query_expansion", None) is None


def token_plan(model) -> TokenPlan | None:
    """The plan for a model whose first module is a plain-text transformer with a fast
    tokenizer, adds no prompt, and whose own tokenisation the plan reproduces on
    :data:`PROBES`; None otherwise (then ``model.encode`` is used)."""
    first = model[0] if len(model) else None
    tokenizer = getattr(first, "tokenizer", None)
    if tokenizer is None or not getattr(tokenizer, "is_fast", False):
        return None
    if getattr(model, "default_prompt_name", None) or not _plain_text_module(first):
        return None
    limit = getattr(first, "max_seq_length", None) or getattr(tokenizer, "model_max_length",
                                                               None)
    max_length = int(limit) if limit and limit < 1_000_000 else None
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    names = tuple(getattr(tokenizer, "model_input_names", ("input_ids", "attention_mask")))
    plan = TokenPlan(tokenizer.backend_tokenizer.to_str(), max_length,
                     bool(getattr(first, "do_lower_case", False)), int(pad_id),
                     getattr(tokenizer, "padding_side", "right") == "left", names)
    tokenize = getattr(model, "preprocess", None) or model.tokenize
    reference = tokenize(list(PROBES))
    extras = tuple((k, v) for k, v in reference.items() if isinstance(v, str))
    expected = _rows(reference["input_ids"], reference["attention_mask"])
    for strip in (False, True):
        candidate = replace(plan, strip=strip, extras=extras)
        if Tokenizing(candidate, len(PROBES), 1 << 30, pin=False).ids(list(PROBES)) == expected:
            return candidate
    log.warning("irforge's tokenisation differs from the model's own for %s", first)
    return None


def _rows(input_ids, attention_mask) -> list[list[int]]:
    """Token ids without padding, one list per text."""
    return [[int(t) for t, m in zip(ids.tolist(), mask.tolist(), strict=True) if m]
            for ids, mask in zip(input_ids, attention_mask, strict=True)]


@dataclass
class Batch:
    """One model call: the input positions it covers and its (padded) input arrays."""

    positions: np.ndarray
    arrays: dict[str, object]


class Tokenizing:
    """Chunks of texts -> packed, padded batches; one Rust tokenizer per worker thread."""

    def __init__(self, plan: TokenPlan, batch_size: int, batch_tokens: int, pin: bool) -> None:
        self.plan, self.batch_size, self.batch_tokens, self.pin = (plan, batch_size,
                                                                   batch_tokens, pin)
        self._local = threading.local()

    def _tokenizer(self):
        tokenizer = getattr(self._local, "tokenizer", None)
        if tokenizer is None:
            tokenizers = require("tokenizers", "eval")
            tokenizer = tokenizers.Tokenizer.from_str(self.plan.serialized)
            tokenizer.no_padding()
            if self.plan.max_length:
                tokenizer.enable_truncation(self.plan.max_length)
            else:
                tokenizer.no_truncation()
            self._local.tokenizer = tokenizer
        return tokenizer

    def ids(self, texts: list[str]) -> list[list[int]]:
        """Token ids of each text (special tokens added, truncated like the model does)."""
        if self.plan.strip:
            texts = [text.strip() for text in texts]
        if self.plan.lowercase:
            texts = [text.lower() for text in texts]
        tokenizer = self._tokenizer()
        encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
        return [encoding.ids for encoding in encode(texts, add_special_tokens=True)]

    def __call__(self, positions: np.ndarray, texts: list[str]) -> list[Batch]:
        ids = self.ids(texts)
        lengths = np.array([len(row) for row in ids], dtype=np.int64)
        order = np.argsort(-lengths, kind="stable")
        groups = pack_batches(lengths[order].tolist(), self.batch_size, self.batch_tokens)
        return [self._arrays(positions, ids, lengths, order[group]) for group in groups]

    def _arrays(self, positions, ids, lengths, rows) -> Batch:
        torch = require("torch", "eval")
        width = int(lengths[rows].max())
        input_ids = np.full((len(rows), width), self.plan.pad_id, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for out, row in enumerate(rows.tolist()):
            span = slice(width - lengths[row], width) if self.plan.pad_left else slice(
                0, lengths[row])
            input_ids[out, span] = ids[row]
            mask[out, span] = 1
        arrays = {"input_ids": torch.from_numpy(input_ids), "attention_mask":
                  torch.from_numpy(mask)}
        if "token_type_ids" in self.plan.input_names:
            arrays["token_type_ids"] = torch.zeros_like(arrays["input_ids"])
        if self.pin:
            arrays = {name: tensor.pin_memory() for name, tensor in arrays.items()}
        return Batch(positions[rows], arrays)


def default_workers(device_class: str) -> int:
    """Tokenizer threads: most cores beside a GPU; two on CPU, where the model needs them."""
    cores = os.cpu_count() or 1
    return max(1, min(8, cores - 1)) if device_class != "cpu" else min(2, cores)


class TextEncoder:
    """Texts -> float32 vectors through the pipeline (picklable: the batch function the dense
    retriever runs in-process or on Ray GPU actors)."""

    def __init__(self, model_path: str, where: Placement, normalize: bool = True,
                 batch_size: int | None = None, batch_tokens: int | None = None,
                 workers: int | None = None, threads: int | None = None) -> None:
        default_size, default_tokens = batch_defaults(where.device)
        self.model_path, self.where, self.normalize = model_path, where, normalize
        self.batch_size = batch_size or default_size
        self.batch_tokens = batch_tokens or default_tokens
        self.workers = workers or default_workers(where.device_class)
        # torch's intra-op threads during a call (None: torch's setting); a caller that
        # encodes a handful of short texts at a time asks for 1 (docs/recipe.md "Concurrency")
        self.threads = threads
        self.path = "pipeline"
        # the model's token plan and tokenizing, made on the first call (not pickled)
        self._cached: dict[str, Any] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_cached": {}}

    def load(self) -> Any:
        """Load the model (once per process) and make its token plan (once per encoder)."""
        model = load_sentence_model(self.model_path, self.where)
        if "plan" not in self._cached:
            self._cached["plan"] = token_plan(model)
        return model

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        model = self.load()
        plan = self._cached["plan"]
        if plan is None:
            self.path = "sentence-transformers"
            log.info("%s has no fast tokenizer plan; encoding with sentence-transformers",
                     self.model_path)
            vectors = model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                   normalize_embeddings=self.normalize,
                                   show_progress_bar=False)
            return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
        self.path = "pipeline"
        if not texts:
            dimension = (getattr(model, "get_embedding_dimension", None)
                         or model.get_sentence_embedding_dimension)
            return np.zeros((0, dimension() or 0), dtype=np.float32)
        return self._run(model, plan, texts)

    def _chunk_size(self) -> int:
        return max(4 * self.batch_size, 512)

    def _chunks(self, texts: list[str]) -> Iterator[tuple[np.ndarray, list[str]]]:
        order = np.argsort(-np.fromiter((len(t) for t in texts), dtype=np.int64,
                                        count=len(texts)), kind="stable")
        size = self._chunk_size()
        for start in range(0, len(texts), size):
            positions = order[start:start + size]
            yield positions, [texts[i] for i in positions.tolist()]

    def _batches(self, plan: TokenPlan, texts: list[str]) -> Iterator[Batch]:
        """Batches in chunk order, tokenized ahead by the worker threads (a single chunk in
        the calling thread: no pool to start for a few texts)."""
        tokenizing = self._cached.get("tokenizing")
        if tokenizing is None or tokenizing.plan != plan:
            pin = self.where.device_class == "cuda"
            tokenizing = Tokenizing(plan, self.batch_size, self.batch_tokens, pin)
            self._cached["tokenizing"] = tokenizing
        chunks = self._chunks(texts)
        if len(texts) <= self._chunk_size():
            for positions, chunk in chunks:
                yield from tokenizing(positions, chunk)
            return
        ahead = self.workers + 1
        with ThreadPoolExecutor(self.workers, thread_name_prefix="irforge-tokenize") as pool:
            pending: list[Future] = []
            for positions, chunk in chunks:
                pending.append(pool.submit(tokenizing, positions, chunk))
                if len(pending) >= ahead:
                    yield from pending.pop(0).result()
            for future in pending:
                yield from future.result()

    def _run(self, model, plan: TokenPlan, texts: list[str]) -> np.ndarray:
        torch = require("torch", "eval")
        threads = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(self.threads)
        try:
            with torch.inference_mode():
                return self._forward(torch, model, plan, texts)
        finally:
            if self.threads:
                torch.set_num_threads(threads)

    def _forward(self, torch, model, plan: TokenPlan, texts: list[str]) -> np.ndarray:
        """Each batch through the model; the vectors in input order."""
        truncate = getattr(model, "truncate_dim", None)  # what ST's encode would apply
        out: list[np.ndarray] = []  # filled by the first flush, once the width is known
        device = torch.device(self.where.device)
        blocking = device.type == "cpu"
        kept: list[tuple[np.ndarray, object]] = []
        rows = 0
        for batch in self._batches(plan, texts):
            features = {name: tensor.to(device, non_blocking=not blocking)
                        for name, tensor in batch.arrays.items()}
            features.update(plan.extras)
            vectors = model.forward(features)["sentence_embedding"].float()
            if truncate:
                vectors = vectors[:, :truncate]
            if self.normalize:
                vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
            kept.append((batch.positions, vectors))
            rows += len(batch.positions)
            if rows >= FLUSH_ROWS:
                _flush(torch, kept, out, len(texts))
                rows = 0
        _flush(torch, kept, out, len(texts))
        return out[0]


def _flush(torch, kept: list, out: list[np.ndarray], total: int) -> None:
    """Copy the vectors kept on the device back into ``out[0]`` (one transfer), which is
    made ``total`` rows tall on the first call."""
    if not kept:
        return
    positions = np.concatenate([p for p, _ in kept])
    vectors = torch.cat([v for _, v in kept]).cpu().numpy()
    if not out:
        out.append(np.zeros((total, vectors.shape[1]), dtype=np.float32))
    out[0][positions] = vectors
    kept.clear()
