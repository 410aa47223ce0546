"""Stage 3, dedup documents: MinHash-LSH near-duplicate removal (DisastIR Appendix A step 3).

Documents are visited in extraction order. Each is looked up in a datasketch ``MinHashLSH``
index of the documents kept so far; a candidate whose estimated Jaccard similarity reaches the
threshold makes it a duplicate of the most similar kept document (ties: the earlier one), and
otherwise it is kept and indexed. So the first of a group of near-duplicates is always the
one kept. Decisions are logged one per document, kept ones with their signature, so a killed
run rebuilds the index from the log and continues.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from itertools import islice
from typing import Any

import numpy as np

from irforge.corpus.extract import documents
from irforge.corpus.minhash import SCHEME, MinHasher, jaccard_estimate
from irforge.corpus.parallel import imap_bounded
from irforge.corpus.state import CorpusWork
from irforge.errors import require


@dataclass(frozen=True)
class DedupSettings:
    """MinHash-LSH settings; DisastIR's threshold and permutation count are the defaults.

    ``lsh_weights`` are the (false positive, false negative) weights datasketch uses to pick
    its bands and rows. Candidates are verified with the signature estimate, so leaning
    towards recall costs only time: on near-copies with Jaccard 0.85-0.90, (0.5, 0.5) found
    about 69 % and (0.2, 0.8) about 89 % (see docs/corpus.md).
    """

    threshold: float = 0.8
    num_perm: int = 128
    shingle_size: int = 5
    seed: int = 1
    lsh_weights: tuple[float, float] = (0.2, 0.8)

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold}")


def _encode(signature: np.ndarray) -> str:
    return base64.b64encode(signature.astype("<u4").tobytes()).decode("ascii")


def _decode(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<u4").astype(np.uint32)


class NearDuplicateIndex:
    """A MinHash-LSH index that decides, item by item, keep or duplicate-of."""

    def __init__(self, settings: DedupSettings) -> None:
        datasketch = require("datasketch", "corpus")
        self.settings = settings
        self._lean = datasketch.LeanMinHash
        self.lsh = datasketch.MinHashLSH(threshold=settings.threshold, num_perm=settings.num_perm,
                                         weights=tuple(settings.lsh_weights))
        self.kept: dict[str, np.ndarray] = {}
        self.order: dict[str, int] = {}

    def _minhash(self, signature: np.ndarray):
        return self._lean(seed=self.settings.seed, hashvalues=signature, scheme=SCHEME)

    def add(self, key: str, signature: np.ndarray) -> None:
        self.lsh.insert(key, self._minhash(signature))
        self.kept[key] = signature
        self.order[key] = len(self.order)

    def best_match(self, signature: np.ndarray) -> tuple[str, float] | None:
        """The most similar kept item at or above the threshold, or None."""
        found = self.lsh.query(self._minhash(signature))
        scored = [(jaccard_estimate(self.kept[key], signature), key)
                  for key in found]
        scored = [(score, key) for score, key in scored if score >= self.settings.threshold]
        if not scored:
            return None
        score, key = max(scored, key=lambda item: (item[0], -self.order[item[1]]))
        return key, score

    def decide(self, key: str, signature: np.ndarray) -> dict[str, Any]:
        """Keep (and index) the item, or name the kept item it duplicates."""
        match = self.best_match(signature)
        if match is None:
            self.add(key, signature)
            return {"doc_id": key, "status": "kept"}
        return {"doc_id": key, "status": "duplicate", "duplicate_of": match[0],
                "similarity": round(match[1], 4)}


def _signature_batches(hasher: MinHasher, rows: Iterator[tuple[str, str]], batch: int,
                       workers: int) -> Iterator[tuple[list[str], np.ndarray]]:
    """(ids, signatures) per batch, computed in worker processes when there are several."""
    def batches() -> Iterator[list[tuple[str, str]]]:
        while chunk := list(islice(rows, batch)):
            yield chunk

    if workers <= 1:
        for chunk in batches():
            yield [key for key, _ in chunk], hasher.signatures([text for _, text in chunk])
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(workers, initializer=_init_worker,
                                                   initargs=(hasher,)) as pool:
        yield from imap_bounded(pool, _worker_signatures, batches(), 4 * workers)


_WORKER_HASHER: MinHasher | None = None


def _init_worker(hasher: MinHasher) -> None:
    global _WORKER_HASHER
    _WORKER_HASHER = hasher


def _worker_signatures(chunk: list[tuple[str, str]]) -> tuple[list[str], np.ndarray]:
    assert _WORKER_HASHER is not None
    return [key for key, _ in chunk], _WORKER_HASHER.signatures([text for _, text in chunk])


def near_duplicates(items: Iterable[tuple[str, str]], settings: DedupSettings | None = None,
                    workers: int = 1, batch: int = 256) -> Iterator[dict[str, Any]]:
    """Decisions for ``(id, text)`` items in order: a library call usable on any texts."""
    settings = settings or DedupSettings()
    hasher = MinHasher(settings.num_perm, settings.shingle_size, settings.seed)
    index = NearDuplicateIndex(settings)
    for keys, signatures in _signature_batches(hasher, iter(items), batch, workers):
        for key, signature in zip(keys, signatures, strict=True):
            yield index.decide(key, signature)


def dedup_documents(work: CorpusWork, settings: DedupSettings | None = None,
                    workers: int | None = None, fresh: bool = False) -> dict[str, Any]:
    """Decide keep/duplicate for every extracted document not yet decided."""
    settings = settings or DedupSettings()
    work.start("dedup", asdict(settings), fresh=fresh)
    log = work.log("dedup", "decisions.jsonl")
    hasher = MinHasher(settings.num_perm, settings.shingle_size, settings.seed)
    index = NearDuplicateIndex(settings)
    decided = set()
    for row in log.rows():
        decided.add(row["doc_id"])
        if row["status"] == "kept":
            index.add(row["doc_id"], _decode(row["signature"]))
    todo = ((doc["doc_id"], doc["text"]) for doc in documents(work)
            if doc["doc_id"] not in decided)
    new = 0
    with log.writer() as writer:
        batches = _signature_batches(hasher, todo, 64, workers or os.cpu_count() or 1)
        for keys, signatures in batches:
            for key, signature in zip(keys, signatures, strict=True):
                row = index.decide(key, signature)
                if row["status"] == "kept":
                    row["signature"] = _encode(signature)
                writer.write(row)
                new += 1
    kept = sum(1 for row in log.rows() if row["status"] == "kept")
    total = len(decided) + new
    summary = {"documents": total, "kept": kept, "duplicates": total - kept,
               "newly_decided": new, "settings": asdict(settings)}
    work.mark_done("dedup", summary)
    return summary


def kept_documents(work: CorpusWork) -> set[str]:
    return {row["doc_id"] for row in work.log("dedup", "decisions.jsonl").rows()
            if row["status"] == "kept"}
