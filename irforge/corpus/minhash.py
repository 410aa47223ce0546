"""MinHash signatures computed for many texts at once, identical to datasketch's ``MinHash``.

datasketch (2.0, default scheme ``affine32``) hashes each shingle with SHA-1 (first 4 bytes),
pre-mixes it with the MurmurHash3 finalizer and applies ``num_perm`` affine permutations
``a*h + b mod 2^32``, one shingle at a time. Here the permutations run as one numpy operation
over all shingles of a batch of texts, and the per-text minimum is a ``minimum.reduceat``;
the parameters come from the same seeded generator, so signatures are bit-for-bit those of
``datasketch.MinHash(num_perm, seed)`` (a test checks this) and go straight into datasketch's
``MinHashLSH``.
"""

from __future__ import annotations

import hashlib
import re
import struct
from array import array
from collections import deque
from collections.abc import Iterator, Sequence

import numpy as np

SCHEME = "affine32"
MAX_HASH = np.uint32(0xFFFFFFFF)
_FMIX = (np.uint32(16), np.uint32(0x85EBCA6B), np.uint32(13), np.uint32(0xC2B2AE35), np.uint32(16))
_WORD = re.compile(r"\w+", re.UNICODE)


def permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The (a, b) permutation parameters datasketch draws for ``num_perm`` and ``seed``."""
    generator = np.random.RandomState(seed)
    a = generator.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = generator.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    return a, b


def fmix32(values: np.ndarray) -> np.ndarray:
    """The MurmurHash3 32-bit finalizer datasketch applies to every shingle hash."""
    s1, m1, s2, m2, s3 = _FMIX
    values = values ^ (values >> s1)
    values = values * m1
    values = values ^ (values >> s2)
    values = values * m2
    return values ^ (values >> s3)


def shingles(text: str, size: int) -> set[bytes]:
    """Lower-cased word n-grams of ``size`` words (the whole text if it is shorter)."""
    words = _WORD.findall(text.lower())
    if len(words) <= size:
        return {" ".join(words).encode("utf-8")} if words else set()
    return {" ".join(words[i:i + size]).encode("utf-8") for i in range(len(words) - size + 1)}


def iter_shingles(text: str, size: int) -> Iterator[bytes]:
    """The word n-grams of :func:`shingles` one at a time (repeats included), without a list
    of the text's words: memory stays at one window of words."""
    window: deque[str] = deque(maxlen=size)
    emitted = False
    for match in _WORD.finditer(text.lower()):
        window.append(match.group())
        if len(window) == size:
            emitted = True
            yield " ".join(window).encode("utf-8")
    if not emitted and window:
        yield " ".join(window).encode("utf-8")


def shingle_hashes(text: str, size: int) -> np.ndarray:
    """The 32-bit hashes of the text's shingles (repeats kept: they do not change a minimum),
    4 bytes per shingle; no set of shingle strings is built."""
    hashes = array("I")
    for shingle in iter_shingles(text, size):
        hashes.append(hash32(shingle))
    return np.frombuffer(hashes, dtype=np.uint32) if hashes else np.zeros(0, dtype=np.uint32)


def hash32(data: bytes) -> int:
    """datasketch's default hash: the first 4 bytes of SHA-1, little endian."""
    return struct.unpack("<I", hashlib.sha1(data).digest()[:4])[0]


class MinHasher:
    """Batch MinHash with fixed permutations (datasketch's ``affine32`` scheme)."""

    def __init__(self, num_perm: int = 128, shingle_size: int = 5, seed: int = 1,
                 max_batch_shingles: int = 16_384) -> None:
        if num_perm < 2:
            raise ValueError(f"num_perm must be at least 2, got {num_perm}")
        if shingle_size < 1:
            raise ValueError(f"shingle_size must be at least 1, got {shingle_size}")
        self.num_perm, self.shingle_size, self.seed = num_perm, shingle_size, seed
        self.a, self.b = permutations(num_perm, seed)
        self.max_batch_shingles = max_batch_shingles

    def signature_of_hashes(self, hashes: np.ndarray) -> np.ndarray:
        """One signature from shingle hashes (all-max for an empty text, like datasketch)."""
        if hashes.size == 0:
            return np.full(self.num_perm, MAX_HASH, dtype=np.uint32)
        return self._minimums(hashes, np.array([0]))[0]

    def _minimums(self, hashes: np.ndarray, starts: np.ndarray) -> np.ndarray:
        mixed = fmix32(hashes.astype(np.uint32))
        permuted = np.outer(mixed, self.a)
        permuted += self.b
        return np.minimum.reduceat(permuted, starts, axis=0)

    def signatures(self, texts: Sequence[str]) -> np.ndarray:
        """(n, num_perm) uint32 signatures of many texts, in batches of bounded size."""
        out = np.full((len(texts), self.num_perm), MAX_HASH, dtype=np.uint32)
        batch: list[np.ndarray] = []
        rows: list[int] = []
        total = 0
        for row, text in enumerate(texts):
            hashes = shingle_hashes(text, self.shingle_size)
            if hashes.size == 0:
                continue
            if hashes.size > self.max_batch_shingles:  # one long text: a slice at a time
                out[row] = self._long_signature(hashes)
                continue
            batch.append(hashes)
            rows.append(row)
            total += hashes.size
            if total >= self.max_batch_shingles:
                self._flush(batch, rows, out)
                batch, rows, total = [], [], 0
        if batch:
            self._flush(batch, rows, out)
        return out

    def _long_signature(self, hashes: np.ndarray) -> np.ndarray:
        """The signature of many hashes, permuted ``max_batch_shingles`` at a time, so the
        (shingles x num_perm) matrix never exceeds one batch."""
        signature = np.full(self.num_perm, MAX_HASH, dtype=np.uint32)
        for start in range(0, hashes.size, self.max_batch_shingles):
            part = hashes[start:start + self.max_batch_shingles]
            np.minimum(signature, self._minimums(part, np.array([0]))[0], out=signature)
        return signature

    def _flush(self, batch: list[np.ndarray], rows: list[int], out: np.ndarray) -> None:
        sizes = np.array([h.size for h in batch])
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        out[rows] = self._minimums(np.concatenate(batch), starts)


def band_ranges(threshold: float, num_perm: int, weights: tuple[float, float]
                ) -> list[tuple[int, int]]:
    """The (start, end) signature slices datasketch's ``MinHashLSH`` picks as its bands."""
    from irforge.core.errors import require

    datasketch = require("datasketch", "corpus")
    lsh = datasketch.MinHashLSH(threshold=threshold, num_perm=num_perm, weights=tuple(weights))
    return [(int(start), int(end)) for start, end in lsh.hashranges]


def band_keys(signature: np.ndarray, ranges: Sequence[tuple[int, int]]) -> list[bytes]:
    """LSH banding: one bucket key per band; two signatures share a bucket when a band's
    values are all equal (the bucketing of datasketch's ``MinHashLSH``)."""
    values = np.ascontiguousarray(signature, dtype="<u4")
    return [values[start:end].tobytes() for start, end in ranges]


def jaccard_estimate(first: np.ndarray, second: np.ndarray) -> float:
    """The share of equal signature slots: MinHash's estimate of Jaccard similarity."""
    return float(np.mean(first == second))
