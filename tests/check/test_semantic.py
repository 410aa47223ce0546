"""Phrase-level meaning: token-budget batches give the vectors one big batch gives."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from irforge.check import semantic
from irforge.retrievers.encode import pack_batches


def test_a_passage_pads_only_the_windows_of_its_own_batch() -> None:
    encoder = semantic._encoder()
    lengths = [256] + [20] * 30  # longest first, as the pipeline sorts them
    batches = pack_batches(lengths, encoder.batch_size, encoder.batch_tokens)
    assert len(batches) > 1
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) * max(lengths[i] for i in batch) <= semantic._TOKEN_BUDGET


def test_encoded_vectors_equal_one_batch_and_keep_the_callers_order() -> None:
    from irforge.core.models import minilm_path, sentence_transformer

    long_passage = " ".join(f"Sentence {n} says the levee in zone {n} was raised." for n in
                            range(40))
    texts = ["flood", long_passage, "Who raised the levee?", "laptop", long_passage[:300],
             *[f"short window {n} about rain" for n in range(40)]]
    vectors = semantic._encode(texts)
    model = sentence_transformer(str(minilm_path()), "cpu")
    reference = model.encode(texts, batch_size=64, normalize_embeddings=True,
                             convert_to_numpy=True, show_progress_bar=False)
    assert vectors.shape == (len(texts), 384)
    assert np.abs(vectors - reference).max() < 1e-5


def test_warm_loads_the_model_once_and_every_thread_gets_that_model() -> None:
    semantic.warm()
    semantic.warm()  # a second call starts nothing
    assert len(semantic._WARMING) <= 1
    with ThreadPoolExecutor(4) as pool:  # asked while (or after) the background load runs
        models = list(pool.map(lambda _: semantic._encoder(), range(4)))
    assert all(model is models[0] for model in models)
    assert [models[0]] == semantic._LOADED
    cosine = float(semantic.vectors(["a laptop"])[0] @ semantic.vectors(["a computer"])[0])
    assert cosine > semantic.WORD_SIMILARITY  # the loaded model is the one the checks use


def test_warm_loads_the_model_itself_in_the_background(monkeypatch) -> None:
    from irforge.retrievers import encode

    # a fresh process: nothing loaded, nothing warming
    monkeypatch.setattr(semantic, "_LOADED", [])
    monkeypatch.setattr(semantic, "_WARMING", [])
    monkeypatch.setattr(encode, "_MODELS", {})
    semantic.warm()
    semantic._WARMING[0].join(120)
    # the first check finds the model and its token plan ready: it loads nothing
    assert len(encode._MODELS) == 1
    assert semantic._LOADED[0]._cached["plan"] is not None
    monkeypatch.setattr(encode, "load_sentence_model", lambda *args: (_ for _ in ()).throw(
        AssertionError("the model was loaded again")))
    monkeypatch.setattr(semantic._LOADED[0], "load", lambda: next(iter(encode._MODELS.values())))
    assert semantic._encode(["a levee"]).shape == (1, 384)


def test_threads_asking_at_once_get_the_vectors_one_thread_gets() -> None:
    texts = [[f"window {n} of passage {p} about rivers" for n in range(6)] for p in range(8)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(semantic.vectors, texts))
    for asked, got in zip(texts, together, strict=True):
        assert np.abs(got - semantic._encode(asked)).max() < 1e-5
