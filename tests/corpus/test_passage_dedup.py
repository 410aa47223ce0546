from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from irforge.corpus.passage_dedup import (
    PassageDedupSettings,
    UnionFind,
    clusters,
    dedup_passages,
    removed_passages,
)
from irforge.corpus.state import CorpusWork

PASSAGES = [
    "Residents of the river valley should move to the school shelter when the siren sounds.",
    "Heat waves raise the risk of kidney failure among outdoor workers in summer.",
    "Residents of the river valley should move to the school shelter when the sirens sound.",
    "The volcano observatory raised the alert level after a swarm of small earthquakes.",
    "Residents of the river valley must move to the school shelter when the siren sounds.",
    "Coastal councils are replacing wooden groynes with rock armour to slow erosion.",
    "The volcano observatory raised its alert level after a swarm of small earthquakes.",
]


def _chunk_log(work: CorpusWork, texts: list[str]) -> None:
    rows = [{"doc_id": f"doc{i}", "title": "", "file": f"doc{i}.pdf", "source_url": None,
             "dropped_short": 0,
             "passages": [{"_id": f"doc{i}_0", "text": text, "tokens": 20, "char_start": 0,
                           "char_end": len(text), "page": 1, "page_end": 1,
                           "page_char_start": 0}]} for i, text in enumerate(texts)]
    with work.log("chunk", "chunks.jsonl").writer() as writer:
        writer.write_all(rows)


def test_union_find_roots_at_the_smallest_member() -> None:
    forest = UnionFind(6)
    forest.union(4, 2)
    forest.union(5, 4)
    forest.union(3, 1)
    assert [forest.find(i) for i in range(6)] == [0, 1, 2, 1, 2, 2]


def test_clusters_link_chains_transitively() -> None:
    forest, link = clusters(4, [(0, 1, 0.95), (1, 2, 0.92)])
    assert forest.find(2) == 0 and forest.find(3) == 3
    assert link[1] == (0, 0.95)


def test_planted_near_duplicate_passages_are_removed_with_a_report(embedder, tmp_path: Path):
    work = CorpusWork(tmp_path / "bench" / "corpus_work")
    _chunk_log(work, PASSAGES)
    summary = dedup_passages(work, PassageDedupSettings(k=4), embed=embedder)
    removed = removed_passages(work)
    assert set(removed) == {"doc2_0", "doc4_0", "doc6_0"}
    assert removed["doc2_0"]["kept"] == "doc0_0" and removed["doc4_0"]["kept"] == "doc0_0"
    assert removed["doc6_0"]["kept"] == "doc3_0"
    for row in removed.values():
        assert row["link_similarity"] >= 0.9 and "cosine" in row["reason"]
    assert summary["kept"] == 4 and summary["clusters"] == 2
    exact = CorpusWork(tmp_path / "exact" / "corpus_work")
    _chunk_log(exact, PASSAGES)
    dedup_passages(exact, PassageDedupSettings(k=4, exact=True), embed=embedder)
    assert set(removed_passages(exact)) == set(removed)


def test_embedding_resumes_after_a_kill(embedder, tmp_path: Path) -> None:
    work = CorpusWork(tmp_path / "bench" / "corpus_work")
    _chunk_log(work, PASSAGES)
    calls: list[int] = []

    def counting(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        if sum(calls) > 7:  # probe + two batches of three done, "killed" on the last
            raise KeyboardInterrupt
        return embedder(texts)

    settings = PassageDedupSettings(batch_size=3)
    with contextlib.suppress(KeyboardInterrupt):
        dedup_passages(work, settings, embed=counting)
    calls.clear()
    dedup_passages(work, settings, embed=lambda texts: calls.append(len(texts)) or
                   embedder(texts))
    assert calls == [1, 1]  # the dimension probe, then only the passage left undone
    assert set(removed_passages(work)) == {"doc2_0", "doc4_0", "doc6_0"}
