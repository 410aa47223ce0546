from __future__ import annotations

import random
from pathlib import Path

import datasketch
import numpy as np
import pytest

from irforge.corpus.dedup import DedupSettings, dedup_documents, near_duplicates
from irforge.corpus.minhash import MinHasher, shingles
from irforge.corpus.state import CorpusWork, StaleStageError

VOCABULARY = (
    "flood", "levee", "river", "gauge", "rainfall", "warning", "shelter", "evacuation",
    "route", "siren", "school", "hospital", "power", "outage", "generator", "fuel", "water",
    "pump", "bridge", "road", "closure", "storm", "wind", "surge", "tide", "coast", "erosion",
    "wildfire", "smoke", "ember", "drought", "crop", "heat", "cooling", "centre", "volunteer",
    "radio", "phone", "alert", "map", "zone", "district", "council", "budget", "report",
    "drill"
)


def _text(rng: random.Random, words: int = 120) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(words))


def _near_copy(text: str, rng: random.Random, edits: int = 3) -> str:
    words = text.split()
    for _ in range(edits):
        words[rng.randrange(len(words))] = rng.choice(VOCABULARY)
    return " ".join(words)


def test_signatures_equal_datasketch_minhash() -> None:
    rng = random.Random(3)
    texts = [_text(rng, n) for n in (1, 4, 40, 300)] + [""]
    for seed, size in ((1, 5), (7, 3)):
        ours = MinHasher(num_perm=64, shingle_size=size, seed=seed).signatures(texts)
        for text, signature in zip(texts, ours, strict=True):
            reference = datasketch.MinHash(num_perm=64, seed=seed)
            for shingle in shingles(text, size):
                reference.update(shingle)
            assert np.array_equal(reference.hashvalues, signature), (seed, size, text[:30])


def test_planted_near_duplicates_are_found_and_distinct_documents_kept() -> None:
    rng = random.Random(11)
    originals = [(f"doc{i}", _text(rng, 400)) for i in range(40)]
    copies = [(f"copy{i}", _near_copy(originals[i][1], rng)) for i in range(0, 40, 4)]
    for i in range(0, 40, 4):  # the plants really are near-duplicates (true Jaccard)
        first, second = shingles(originals[i][1], 5), shingles(copies[i // 4][1], 5)
        assert len(first & second) / len(first | second) > 0.85
    items = originals + copies
    decisions = {row["doc_id"]: row for row in near_duplicates(items, DedupSettings(), batch=16)}
    for i in range(40):
        assert decisions[f"doc{i}"]["status"] == "kept"
    for i in range(0, 40, 4):
        row = decisions[f"copy{i}"]
        assert row["status"] == "duplicate" and row["duplicate_of"] == f"doc{i}"
        assert row["similarity"] >= 0.8


def test_threshold_and_seed_are_honoured() -> None:
    rng = random.Random(5)
    base = _text(rng, 200)
    loose = _near_copy(base, rng, edits=25)
    strict = list(near_duplicates([("a", base), ("b", loose)], DedupSettings(threshold=0.95)))
    assert strict[1]["status"] == "kept"
    relaxed = list(near_duplicates([("a", base), ("b", loose)],
                                   DedupSettings(threshold=0.3, seed=99)))
    assert relaxed[1]["status"] == "duplicate"
    with pytest.raises(ValueError, match="threshold"):
        DedupSettings(threshold=1.5)


def _extract_log(work: CorpusWork, docs: list[tuple[str, str]]) -> None:
    with work.log("extract", "documents.jsonl").writer() as writer:
        for doc_id, text in docs:
            writer.write({"file": f"{doc_id}.txt", "status": "ok", "doc_id": doc_id, "title": "",
                          "text": text, "pages": [[1, 0, len(text)]]})


def test_dedup_stage_resumes_after_a_torn_log(tmp_path: Path) -> None:
    rng = random.Random(2)
    docs = [(f"d{i}", _text(rng, 400)) for i in range(12)]
    docs += [("d12", _near_copy(docs[0][1], rng)), ("d13", _near_copy(docs[5][1], rng))]
    work = CorpusWork(tmp_path / "bench" / "corpus_work")
    _extract_log(work, docs)
    full = dedup_documents(work, workers=1)
    assert (full["kept"], full["duplicates"]) == (12, 2)
    log = work.stage_dir("dedup") / "decisions.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-4]) + lines[-4][:25])  # as if killed mid-write
    resumed = dedup_documents(work, workers=1)
    assert resumed["newly_decided"] == 4
    assert (resumed["kept"], resumed["duplicates"]) == (12, 2)
    assert [row["doc_id"] for row in work.log("dedup", "decisions.jsonl").rows()] == \
        [doc_id for doc_id, _ in docs]
    with pytest.raises(StaleStageError, match="--fresh"):
        dedup_documents(work, DedupSettings(threshold=0.7), workers=1)
    fresh = dedup_documents(work, DedupSettings(threshold=0.7), workers=1, fresh=True)
    assert fresh["newly_decided"] == 14


def test_default_lsh_weights_favour_recall_on_borderline_copies() -> None:
    rng = random.Random(8)
    originals = [(f"doc{i}", _text(rng, 300)) for i in range(60)]
    copies = [(f"copy{i}", _near_copy(text, rng, edits=5)) for i, (_, text) in
              enumerate(originals)]
    truth = []
    for (_, text), (_, copy) in zip(originals, copies, strict=True):
        first, second = shingles(text, 5), shingles(copy, 5)
        truth.append(len(first & second) / len(first | second))
    assert min(truth) > 0.82 and max(truth) < 0.95  # borderline near-duplicates
    found = {}
    for weights in ((0.5, 0.5), (0.2, 0.8)):
        rows = near_duplicates(originals + copies, DedupSettings(lsh_weights=weights))
        found[weights] = sum(row["status"] == "duplicate" for row in rows)
    assert found[(0.2, 0.8)] >= found[(0.5, 0.5)]
    assert found[(0.2, 0.8)] >= 0.85 * len(copies)
