"""The encoding pipeline: token-budget packing, and vectors equal to sentence-transformers'.

Device-agnostic: the model runs where :func:`placement` puts it (a GPU in half precision when
there is one), and the tolerance follows the dtype."""

from __future__ import annotations

import numpy as np
import pytest

from irforge.retrievers import encode
from irforge.retrievers.dense import default_model_path
from irforge.retrievers.device import placement
from irforge.retrievers.encode import (
    TextEncoder,
    Tokenizing,
    load_sentence_model,
    pack_batches,
    token_plan,
)

TEXTS = ["flood warnings on the river", "  a recipe for bread\n", "", "flood warnings on the river",
         "Élan vital — ünïcode text", "short", "word " * 400,  # past the 256-token limit
         "Which 2019 court rulings cite the EU data protection directive?"] + [
    f"passage {i} about {' '.join(['topic'] * (i % 17))} number {i}" for i in range(40)]


def tolerance(dtype: str) -> float:
    return 1e-5 if dtype == "float32" else 3e-2


@pytest.fixture(scope="module")
def where():
    return placement()


@pytest.fixture(scope="module")
def model(where):
    return load_sentence_model(str(default_model_path()), where)


def test_pack_batches_keeps_rows_and_tokens_within_budget():
    lengths = [50, 40, 40, 30, 10, 10, 10, 10, 10, 2]
    batches = pack_batches(lengths, batch_size=4, batch_tokens=100)
    assert batches == [[0, 1], [2, 3], [4, 5, 6, 7], [8, 9]]
    assert sorted(p for b in batches for p in b) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= 4 and len(batch) * max(lengths[p] for p in batch) <= 100
    assert pack_batches([500, 3], batch_size=8, batch_tokens=100) == [[0], [1]]  # alone
    assert pack_batches([], 4, 100) == []


def test_tokenizing_packs_by_tokens_and_covers_every_text(model):
    plan = token_plan(model)
    assert plan is not None and plan.max_length == model.max_seq_length
    tokenizing = Tokenizing(plan, batch_size=16, batch_tokens=256, pin=False)
    positions = np.arange(len(TEXTS))
    batches = tokenizing(positions, TEXTS)
    assert sorted(np.concatenate([b.positions for b in batches]).tolist()) == positions.tolist()
    widths = [b.arrays["input_ids"].shape[1] for b in batches]
    assert widths == sorted(widths, reverse=True)  # longest first
    assert max(widths) == model.max_seq_length  # the long text was truncated like ST does
    for batch in batches:
        rows, width = batch.arrays["input_ids"].shape
        assert rows <= 16 and (rows * width <= 256 or rows == 1)
        assert batch.arrays["attention_mask"].sum(1).max() == width


def test_pipeline_equals_sentence_transformers_encode(model, where):
    expected = model.encode(TEXTS, batch_size=64, normalize_embeddings=True,
                            convert_to_numpy=True)
    got = TextEncoder(str(default_model_path()), where)(TEXTS)
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_allclose(got, np.asarray(expected, np.float32), atol=tolerance(where.dtype))
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-4)
    # same ranking of the texts for the first query
    ranking = np.argsort(-(got @ got[7]), kind="stable")[:5]
    assert ranking.tolist() == np.argsort(-(expected @ expected[7]), kind="stable")[:5].tolist()


def test_small_batches_many_workers_and_no_normalisation_give_the_same_vectors(model, where):
    path = str(default_model_path())
    whole = TextEncoder(path, where, normalize=False)(TEXTS)
    pieces = TextEncoder(path, where, normalize=False, batch_size=3, batch_tokens=64,
                         workers=3)(TEXTS)
    np.testing.assert_allclose(pieces, whole, atol=tolerance(where.dtype))
    raw = model.encode(TEXTS, normalize_embeddings=False, convert_to_numpy=True)
    np.testing.assert_allclose(whole, raw, atol=tolerance(where.dtype))
    assert TextEncoder(path, where)([]).shape == (0, 384)


def test_models_without_a_fast_tokenizer_plan_use_sentence_transformers(monkeypatch, where):
    monkeypatch.setattr(encode, "token_plan", lambda model: None)
    encoder = TextEncoder(str(default_model_path()), where)
    got = encoder(TEXTS[:5])
    assert encoder.path == "sentence-transformers"
    monkeypatch.undo()
    pipeline = TextEncoder(str(default_model_path()), where)
    np.testing.assert_allclose(pipeline(TEXTS[:5]), got, atol=tolerance(where.dtype))
    assert pipeline.path == "pipeline"


def test_an_encoder_on_its_own_threads_gives_the_same_vectors_and_restores_torchs(where):
    import pickle

    import torch

    path = str(default_model_path())
    before = torch.get_num_threads()
    single = TextEncoder(path, where, threads=1)
    seen: list[int] = []
    forward = single._forward

    def spying(*args):
        seen.append(torch.get_num_threads())
        return forward(*args)

    single._forward = spying  # type: ignore[method-assign]
    got = single(TEXTS)
    assert seen == [1] and torch.get_num_threads() == before
    np.testing.assert_allclose(got, TextEncoder(path, where)(TEXTS), atol=tolerance(where.dtype))
    # a second call reuses the token plan; a pickled copy (Ray actors) carries no cache
    used = TextEncoder(path, where, threads=1)
    used(TEXTS[:3])
    assert used._cached["plan"] is not None
    copy = pickle.loads(pickle.dumps(used))
    assert copy._cached == {} and copy.threads == 1
    np.testing.assert_allclose(copy(TEXTS[:3]), got[:3], atol=tolerance(where.dtype))


def test_texts_past_one_chunk_are_tokenized_by_the_workers_to_the_same_vectors(where):
    path = str(default_model_path())
    many = [f"{text} {copy}" for copy in range(12) for text in TEXTS[:48]]  # 576 > 512
    encoder = TextEncoder(path, where, batch_size=32, workers=2)
    assert len(many) > encoder._chunk_size()
    whole = encoder(many)
    np.testing.assert_allclose(whole[::37], TextEncoder(path, where)(many[::37]),
                               atol=tolerance(where.dtype))
