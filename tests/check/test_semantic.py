"""Phrase-level meaning: length-sorted batches give the vectors one big batch gives."""

from __future__ import annotations

import numpy as np

from irforge.check import semantic


def test_length_batches_keep_every_index_once_and_stay_within_the_budget() -> None:
    texts = ["a flood plan " * 80, "zone", "the river rose", "word " * 40, "x" * 3000, "b"]
    batches = semantic._length_batches(texts)
    assert sorted(i for batch in batches for i in batch) == list(range(len(texts)))
    for batch in batches:
        widest = max(min(len(texts[i]) // 4 + 2, 256) for i in batch)
        assert len(batch) == 1 or len(batch) * widest <= semantic._TOKEN_BUDGET
    assert semantic._length_batches([]) == [[]]


def test_encoded_vectors_equal_one_batch_and_keep_the_callers_order() -> None:
    long_passage = " ".join(f"Sentence {n} says the levee in zone {n} was raised." for n in
                            range(40))
    texts = ["flood", long_passage, "Who raised the levee?", "laptop", long_passage[:300],
             *[f"short window {n} about rain" for n in range(40)]]
    vectors = semantic._encode(texts)
    reference = semantic._model().encode(texts, batch_size=64, normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False)
    assert vectors.shape == (len(texts), 384)
    assert np.abs(vectors - reference).max() < 1e-5
    assert len(semantic._length_batches(texts)) > 1  # the long passage was batched apart
