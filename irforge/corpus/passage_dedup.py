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
from pathlib import Path
from typing import Any

import numpy as np

from irforge.corpus.chunk_stage import passages
from irforge.corpus.state import CorpusWork
from irforge.errors import require
from irforge.jsonl import write_json, write_jsonl


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
                  embed: Callable[[list[str]], np.ndarray], batch_size: int) -> None:
    """Fill an (total, dim) float32 file, resuming after the rows a previous run finished."""
    progress = path.with_suffix(".progress.json")
    done = 0
    if path.exists() and progress.exists():
        import json

        done = int(json.loads(progress.read_text())["rows"])
    else:
        np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(total, dim)).flush()
    if done >= total:
        return
    matrix = np.load(path, mmap_mode="r+")
    batch: list[str] = []
    row = done
    for index, text in enumerate(texts()):
        if index < done:
            continue
        batch.append(text)
        if len(batch) == batch_size or index == total - 1:
            matrix[row:row + len(batch)] = embed(batch)
            matrix.flush()
            row += len(batch)
            batch = []
            write_json(progress, {"rows": row})
    del matrix


def similar_pairs(vectors: np.ndarray, k: int, threshold: float, exact: bool,
                  batch_size: int = 4096) -> Iterable[tuple[int, int, float]]:
    """(i, j, cosine) with i < j for top-k neighbour pairs at or above the threshold."""
    usearch_index = require("usearch.index", "eval")
    total, dim = vectors.shape
    index = usearch_index.Index(ndim=dim, metric="cos", dtype="f32")
    for start in range(0, total, batch_size):
        stop = min(total, start + batch_size)
        index.add(np.arange(start, stop, dtype=np.uint64), np.asarray(vectors[start:stop]))
    wanted = min(k + 1, total)
    for start in range(0, total, batch_size):
        stop = min(total, start + batch_size)
        queries = np.asarray(vectors[start:stop])
        found = index.search(queries, wanted, exact=exact)
        keys = np.asarray(found.keys).reshape(stop - start, -1).astype(np.int64)
        for offset, row in enumerate(keys):
            me = start + offset
            others = np.unique(row[(row >= 0) & (row != me) & (row < total)])
            if others.size == 0:
                continue
            sims = np.asarray(vectors[others]) @ queries[offset]
            for other, sim in zip(others.tolist(), sims.tolist(), strict=True):
                if sim >= threshold:
                    yield min(me, other), max(me, other), float(sim)


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
                   fresh: bool = False) -> dict[str, Any]:
    """Embed, find near-duplicate clusters, and write ``dedup_passages/report.jsonl``."""
    settings = settings or PassageDedupSettings()
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
                      embed, settings.batch_size)
        vectors = np.load(path, mmap_mode="r")
        unique = {(a, b): sim for a, b, sim in
                  similar_pairs(vectors, settings.k, settings.threshold, settings.exact)}
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
