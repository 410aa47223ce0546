"""Stage 3, dedup documents: MinHash-LSH near-duplicate removal (DisastIR Appendix A step 3).

Documents are visited in extraction order. Each is looked up in an LSH index (datasketch
``MinHashLSH``'s bands and bucketing) of the documents kept so far; a candidate whose
estimated Jaccard similarity reaches the threshold makes it a duplicate of the most similar
kept document (ties: the earlier one), and otherwise it is kept and indexed. So the first of
a group of near-duplicates is always the one kept. Decisions are logged one per document,
kept ones with their signature, so a killed run rebuilds the index from the log and
continues. Signatures and band keys are computed batch by batch by an executor (a process
pool, or Ray workers); the decisions are made here, in order.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

import numpy as np

from irforge.corpus.extract import documents
from irforge.corpus.minhash import MinHasher, band_keys, band_ranges, jaccard_estimate
from irforge.corpus.state import CorpusWork
from irforge.scale.executor import BatchJob, Executor, executor_for


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
    """An LSH index (datasketch's bands, see :func:`~irforge.corpus.minhash.band_ranges`) that
    decides, item by item, keep or duplicate-of. Band keys may come precomputed from workers."""

    def __init__(self, settings: DedupSettings) -> None:
        self.settings = settings
        self.ranges = band_ranges(settings.threshold, settings.num_perm, settings.lsh_weights)
        self.buckets: list[dict[bytes, list[str]]] = [{} for _ in self.ranges]
        self.kept: dict[str, np.ndarray] = {}
        self.order: dict[str, int] = {}

    def add(self, key: str, signature: np.ndarray, bands: list[bytes] | None = None) -> None:
        for table, band in zip(self.buckets, bands or band_keys(signature, self.ranges),
                               strict=True):
            table.setdefault(band, []).append(key)
        self.kept[key] = signature
        self.order[key] = len(self.order)

    def best_match(self, signature: np.ndarray, bands: list[bytes] | None = None
                   ) -> tuple[str, float] | None:
        """The most similar kept item at or above the threshold, or None."""
        found: set[str] = set()
        for table, band in zip(self.buckets, bands or band_keys(signature, self.ranges),
                               strict=True):
            found.update(table.get(band, ()))
        scored = [(jaccard_estimate(self.kept[key], signature), key)
                  for key in found]
        scored = [(score, key) for score, key in scored if score >= self.settings.threshold]
        if not scored:
            return None
        score, key = max(scored, key=lambda item: (item[0], -self.order[item[1]]))
        return key, score

    def decide(self, key: str, signature: np.ndarray, bands: list[bytes] | None = None
               ) -> dict[str, Any]:
        """Keep (and index) the item, or name the kept item it duplicates."""
        bands = bands or band_keys(signature, self.ranges)
        match = self.best_match(signature, bands)
        if match is None:
            self.add(key, signature, bands)
            return {"doc_id": key, "status": "kept"}
        return {"doc_id": key, "status": "duplicate", "duplicate_of": match[0],
                "similarity": round(match[1], 4)}


class Signer:
    """The batch function of MinHash-LSH: ``(id, text)`` items -> ``(id, signature, band
    keys)``; the part of the dedup that parallelises (the decisions stay in input order)."""

    def __init__(self, settings: DedupSettings) -> None:
        self.hasher = MinHasher(settings.num_perm, settings.shingle_size, settings.seed)
        self.ranges = band_ranges(settings.threshold, settings.num_perm, settings.lsh_weights)

    def __call__(self, items: list[tuple[str, str]]
                 ) -> list[tuple[str, np.ndarray, list[bytes]]]:
        signatures = self.hasher.signatures([text for _, text in items])
        return [(key, signature, band_keys(signature, self.ranges))
                for (key, _), signature in zip(items, signatures, strict=True)]


def _signed(items: Iterable[tuple[str, str]], settings: DedupSettings, batch: int,
            executor: Executor) -> Iterator[tuple[str, np.ndarray, list[bytes]]]:
    return executor.map(BatchJob(partial(Signer, settings), batch_size=batch, name="minhash"),
                        items)


def near_duplicates(items: Iterable[tuple[str, str]], settings: DedupSettings | None = None,
                    workers: int = 1, batch: int = 256, executor: Executor | None = None
                    ) -> Iterator[dict[str, Any]]:
    """Decisions for ``(id, text)`` items in order: a library call usable on any texts."""
    settings = settings or DedupSettings()
    index = NearDuplicateIndex(settings)
    for key, signature, bands in _signed(items, settings, batch,
                                         executor_for(workers, executor)):
        yield index.decide(key, signature, bands)


def dedup_documents(work: CorpusWork, settings: DedupSettings | None = None,
                    workers: int | None = None, fresh: bool = False,
                    executor: Executor | None = None) -> dict[str, Any]:
    """Decide keep/duplicate for every extracted document not yet decided (signatures and
    bands computed by ``executor``, decisions made here in extraction order)."""
    settings = settings or DedupSettings()
    work.start("dedup", asdict(settings), fresh=fresh)
    log = work.log("dedup", "decisions.jsonl")
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
        for key, signature, bands in _signed(todo, settings, 64,
                                             executor_for(workers, executor)):
            row = index.decide(key, signature, bands)
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
