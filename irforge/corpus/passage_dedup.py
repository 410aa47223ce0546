"""Stage 5, dedup passages: embedding near-duplicates (DisastIR Appendix A step 5).

Every passage is embedded (unit length) into a float32 file on disk, batch by batch, with the
count done saved after each batch, so a killed run resumes embedding where it stopped. A
usearch index (ANN by default, brute force with ``exact=True``) gives each passage its top-k
neighbours; pairs whose cosine, recomputed exactly from the stored vectors, reaches the
threshold are joined with union-find. Each cluster keeps its earliest passage (corpus order,
so the choice is deterministic and favours the first source) and every other member is
removed, with a report row saying which passage it duplicates and how similar they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from irforge.core.errors import require
from irforge.core.jsonl import write_json, write_jsonl
from irforge.corpus.chunk_stage import passages
from irforge.corpus.state import CorpusWork
from irforge.scale.executor import (
    BatchJob,
    Executor,
    LocalExecutor,
    batched,
    distributed_executor,
    ready,
)


@dataclass(frozen=True)
class PassageDedupSettings:
    """Similarity threshold, neighbours per passage, embedder and index mode."""

    threshold: float = 0.9
    k: int = 10
    embedder: str = "minilm"
    exact: bool = False
    batch_size: int = 256
    device: str = "cpu"

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold}")
        if self.k < 1:
            raise ValueError(f"k must be at least 1, got {self.k}")


class UnionFind:
    """Disjoint sets over 0..n-1 whose root is always the smallest member."""

    def __init__(self, size: int) -> None:
        self.parent = np.arange(size, dtype=np.int64)

    def find(self, item: int) -> int:
        root = item
        while self.parent[root] != root:
            root = int(self.parent[root])
        while self.parent[item] != root:
            self.parent[item], item = root, int(self.parent[item])
        return root

    def union(self, first: int, second: int) -> None:
        a, b = self.find(first), self.find(second)
        if a != b:
            self.parent[max(a, b)] = min(a, b)



def embed_to_file(texts: Callable[[], Iterable[str]], total: int, path: Path, dim: int,
                  embed: Callable[[list[str]], np.ndarray], batch_size: int,
                  executor: Executor | None = None, uses_gpu: bool = False) -> None:
    """Fill an (total, dim) float32 file, resuming after the rows a previous run finished.

    ``embed`` runs in this process, or on the workers of a distributed ``executor`` (it is
    sent to them, so it must pickle; an :class:`~irforge.corpus.embed.Embedder` does), one
    GPU per worker when ``uses_gpu`` and the cluster has GPUs."""
    progress = path.with_suffix(".progress.json")
    done = 0
    if path.exists() and progress.exists():
        import json

        done = int(json.loads(progress.read_text())["rows"])
    else:
        np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(total, dim)).flush()
    if done >= total:
        return
    runner = executor if executor is not None and executor.distributed else LocalExecutor(1)
    job = BatchJob(partial(ready, embed), batch_size=batch_size, uses_gpu=uses_gpu,
                   name="embed")
    vectors = runner.map(job, islice(texts(), done, total))
    matrix = np.load(path, mmap_mode="r+")
    row = done
    for block in batched(vectors, batch_size):
        matrix[row:row + len(block)] = np.stack(block)
        matrix.flush()
        row += len(block)
        write_json(progress, {"rows": row})
    del matrix


def neighbour_index(vectors: np.ndarray, batch_size: int = 4096) -> Any:
    """A usearch cosine index over the rows of ``vectors`` (keys are row numbers)."""
    usearch_index = require("usearch.index", "eval")
    total, dim = vectors.shape
    index = usearch_index.Index(ndim=dim, metric="cos", dtype="f32")
    for start in range(0, total, batch_size):
        stop = min(total, start + batch_size)
        index.add(np.arange(start, stop, dtype=np.uint64), np.asarray(vectors[start:stop]))
    return index


class PairFinder:
    """The batch function of the neighbour search: block starts -> each block's pairs
    ``(i, j, cosine)``, i < j, among top-k neighbours at or above the threshold."""

    def __init__(self, index: Any, vectors: np.ndarray, k: int, threshold: float, exact: bool,
                 block: int) -> None:
        if isinstance(index, bytes | bytearray | memoryview | np.ndarray):
            index = require("usearch.index", "eval").Index.restore(index)
        self.index, self.vectors, self.threshold, self.exact = index, vectors, threshold, exact
        self.block, self.wanted = block, min(k + 1, vectors.shape[0])

    def __call__(self, starts: list[int]) -> list[list[tuple[int, int, float]]]:
        return [self.pairs(start) for start in starts]

    def pairs(self, start: int) -> list[tuple[int, int, float]]:
        total = self.vectors.shape[0]
        stop = min(total, start + self.block)
        queries = np.asarray(self.vectors[start:stop])
        found = self.index.search(queries, self.wanted, exact=self.exact)
        keys = np.asarray(found.keys).reshape(stop - start, -1).astype(np.int64)
        out = []
        for offset, row in enumerate(keys):
            me = start + offset
            others = np.unique(row[(row >= 0) & (row != me) & (row < total)])
            if others.size == 0:
                continue
            sims = np.asarray(self.vectors[others]) @ queries[offset]
            for other, sim in zip(others.tolist(), sims.tolist(), strict=True):
                if sim >= self.threshold:
                    out.append((min(me, other), max(me, other), float(sim)))
        return out


def similar_pairs(vectors: np.ndarray, k: int, threshold: float, exact: bool,
                  batch_size: int = 4096, executor: Executor | None = None
                  ) -> Iterable[tuple[int, int, float]]:
    """(i, j, cosine) with i < j for top-k neighbour pairs at or above the threshold.

    The index is built here; with a distributed ``executor`` it is shipped to the workers,
    which search blocks of ``batch_size`` passages each (the same index, so the same pairs)."""
    index = neighbour_index(vectors, batch_size)
    starts = list(range(0, vectors.shape[0], batch_size))
    if executor is not None and executor.distributed:
        finder = partial(PairFinder, bytes(index.save()), np.asarray(vectors), k, threshold,
                         exact, batch_size)
        job = BatchJob(finder, batch_size=1, name="neighbours")
        blocks = executor.map(job, starts)
    else:
        blocks = map(PairFinder(index, vectors, k, threshold, exact, batch_size).pairs, starts)
    for pairs in blocks:
        yield from pairs


def clusters(total: int, pairs: Iterable[tuple[int, int, float]]
             ) -> tuple[UnionFind, dict[int, tuple[int, float]]]:
    """Union-find over the pairs, and for each member its most similar linked passage."""
    forest = UnionFind(total)
    link: dict[int, tuple[int, float]] = {}
    for first, second, sim in pairs:
        forest.union(first, second)
        for me, other in ((first, second), (second, first)):
            if me not in link or sim > link[me][1]:
                link[me] = (other, sim)
    return forest, link


def removal_report(ids: Sequence[str], vectors: np.ndarray, forest: UnionFind,
                   link: dict[int, tuple[int, float]], threshold: float) -> list[dict[str, Any]]:
    """One row per removed passage: the kept representative and why it was removed."""
    sizes: dict[int, int] = {}
    for member in link:
        root = forest.find(member)
        sizes[root] = sizes.get(root, 0) + 1
    rows = []
    for member in sorted(link):
        root = forest.find(member)
        if root == member:
            continue
        neighbour, sim = link[member]
        rows.append({"_id": ids[member], "kept": ids[root],
                     "similarity_to_kept": round(float(vectors[member] @ vectors[root]), 4),
                     "linked_to": ids[neighbour], "link_similarity": round(sim, 4),
                     "cluster_size": sizes[root],
                     "reason": f"cosine {sim:.3f} >= {threshold} with {ids[neighbour]}; "
                               f"cluster represented by {ids[root]}"})
    return rows


def dedup_passages(work: CorpusWork, settings: PassageDedupSettings | None = None,
                   embed: Callable[[list[str]], np.ndarray] | None = None,
                   fresh: bool = False, executor: Executor | None = None) -> dict[str, Any]:
    """Embed, find near-duplicate clusters, and write ``dedup_passages/report.jsonl``.

    With a distributed ``executor`` (default: the active one) the encoding and the neighbour
    search run on the cluster; clustering and the report are made here, as without one."""
    settings = settings or PassageDedupSettings()
    executor = executor or distributed_executor()
    ids = [row["_id"] for row in passages(work)]
    work.start("dedup_passages", {**asdict(settings), "passages": len(ids)}, fresh=fresh)
    folder = work.stage_dir("dedup_passages")
    if embed is None:
        from irforge.corpus.embed import Embedder

        embedder = Embedder(settings.embedder, device=settings.device,
                            batch_size=min(settings.batch_size, 128))
        embed, dim = embedder, embedder.dimension
    else:
        dim = int(embed(["dimension probe"]).shape[1])
    path = folder / "embeddings.npy"
    if ids:
        embed_to_file(lambda: (row["text"] for row in passages(work)), len(ids), path, dim,
                      embed, settings.batch_size, executor, settings.device != "cpu")
        vectors = np.load(path, mmap_mode="r")
        unique = {(a, b): sim for a, b, sim in
                  similar_pairs(vectors, settings.k, settings.threshold, settings.exact,
                                executor=executor)}
        pairs = [(a, b, sim) for (a, b), sim in sorted(unique.items())]
        forest, link = clusters(len(ids), pairs)
        report = removal_report(ids, vectors, forest, link, settings.threshold)
    else:
        pairs, report = [], []
    write_jsonl(folder / "report.jsonl", report)
    summary = {"passages": len(ids), "removed": len(report), "kept": len(ids) - len(report),
               "similar_pairs": len(pairs),
               "clusters": len({row["kept"] for row in report}), "settings": asdict(settings)}
    work.mark_done("dedup_passages", summary)
    return summary


def removed_passages(work: CorpusWork) -> dict[str, dict[str, Any]]:
    log = work.log("dedup_passages", "report.jsonl")
    return {row["_id"]: row for row in log.rows()}
