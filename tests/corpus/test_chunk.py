from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from irforge.corpus.chunk import (
    ChunkSettings,
    breakpoints_from_embeddings,
    chunk_text,
    normalized,
    page_of,
)
from irforge.corpus.sentences import sentence_spans
from irforge.corpus.tokenizers import TiktokenTokenizer, get_tokenizer

WORDS = (
    "the", "levee", "held", "but", "the", "river", "rose", "again", "overnight", "and",
    "crews", "moved", "sandbags", "to", "the", "school", "gym", "while", "the", "council",
    "opened", "a", "second", "shelter"
)


def _random_text(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(1, 40)):
        kind = rng.random()
        if kind < 0.05:
            words = ["!" * rng.randint(50, 700)]  # one 'word' of hundreds of tokens
        elif kind < 0.15:
            words = [rng.choice(WORDS) for _ in range(rng.randint(150, 600))]  # run-on sentence
        else:
            words = [rng.choice(WORDS) for _ in range(rng.randint(1, 30))]
        sentence = " ".join(words)
        sentences.append(sentence[:1].upper() + sentence[1:] + rng.choice([".", "!", "?", ""]))
    joiners = [" ", " ", "\n", "\n\n"]
    return "".join(s + rng.choice(joiners) for s in sentences)


@pytest.mark.parametrize("spec", ["words", "minilm"])
def test_chunks_never_exceed_the_maximum_on_random_texts(spec: str) -> None:
    tokenizer = get_tokenizer(spec)
    rng = random.Random(2024)
    for case in range(120):
        text = _random_text(rng)
        settings = ChunkSettings(max_tokens=rng.choice([8, 16, 64, 256]),
                                 min_tokens=rng.choice([0, 4, 8]), tokenizer=spec)
        chunks, dropped = chunk_text(text, tokenizer, settings)
        texts = [normalized(text[c.start:c.end]) for c in chunks]
        counts = tokenizer.count_many(texts)
        assert all(count <= settings.max_tokens for count in counts), (case, spec)
        assert [c.tokens for c in chunks] == counts
        assert all(a.end <= b.start for a, b in itertools.pairwise(chunks))
        if dropped == 0:  # nothing lost: the chunks hold every word of the text, in order
            assert "".join("".join(texts).split()) == "".join(text.split())


def test_chunks_end_on_sentence_boundaries_when_sentences_fit() -> None:
    tokenizer = get_tokenizer("words")
    text = " ".join(f"Sentence number {i} talks about shelter {i}." for i in range(60))
    ends = {end for _, end in sentence_spans(text)}
    chunks, _ = chunk_text(text, tokenizer, ChunkSettings(max_tokens=40, min_tokens=5))
    assert len(chunks) > 5
    assert all(chunk.end in ends for chunk in chunks)
    assert all(chunk.tokens <= 40 for chunk in chunks)


def test_short_tail_is_merged_and_tiny_documents_dropped() -> None:
    tokenizer = get_tokenizer("words")
    text = "One two three four five six seven eight nine ten. Short tail."
    chunks, dropped = chunk_text(text, tokenizer, ChunkSettings(max_tokens=20, min_tokens=5))
    assert len(chunks) == 1 and dropped == 0
    chunks, dropped = chunk_text("Too short.", tokenizer, ChunkSettings(max_tokens=20,
                                                                        min_tokens=5))
    assert chunks == [] and dropped == 1


def test_sentence_splitter_keeps_abbreviations_together() -> None:
    text = "Dr. Lee met the U.S. team at 5 p.m. on Friday. See Fig. 2 for e.g. routes!\n\nNext"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Dr. Lee met the U.S. team at 5 p.m. on Friday.", "See Fig. 2 for e.g. routes!", "Next"]


def test_tiktoken_adapter_counts_with_a_real_encoding() -> None:
    tiktoken = pytest.importorskip("tiktoken")
    ranks = {bytes([i]): i for i in range(256)}  # byte-level BPE without merges
    encoding = tiktoken.Encoding("bytes", pat_str=r"\S+|\s+", mergeable_ranks=ranks,
                                 special_tokens={})
    tokenizer = TiktokenTokenizer(encoding)
    assert tokenizer.count_many(["abc", "héllo"]) == [3, 6]
    text = "Flooding closed the road. " * 40
    chunks, _ = chunk_text(text, tokenizer, ChunkSettings(max_tokens=60, min_tokens=0))
    assert all(count <= 60 for count in
               tokenizer.count_many([normalized(text[c.start:c.end]) for c in chunks]))


def test_breakpoints_mark_the_largest_topic_shifts() -> None:
    vectors = np.array([[1, 0], [1, 0.05], [1, 0.1], [0, 1], [0.05, 1], [0.1, 1]], dtype=float)
    assert breakpoints_from_embeddings(vectors, percentile=80) == {3}


def test_semantic_chunking_breaks_between_topics(embedder) -> None:
    floods = ["The river burst its banks after three days of rain.",
              "Sandbags were placed along the flood wall by volunteers.",
              "Flood water entered two hundred homes near the river.",
              "The flood warning stayed in force until the river fell."]
    finance = ["The central bank raised interest rates by a quarter point.",
               "Bond yields rose as investors expected higher inflation.",
               "Mortgage lenders repriced their fixed-rate loans."]
    text = " ".join(floods + finance)
    settings = ChunkSettings(max_tokens=256, min_tokens=5, semantic=True,
                             breakpoint_percentile=80)
    chunks, _ = chunk_text(text, get_tokenizer("minilm"), settings, embedder)
    assert len(chunks) == 2
    assert text[chunks[1].start:].startswith("The central bank")


def test_page_of_maps_offsets() -> None:
    pages = [[1, 0, 100], [3, 102, 200]]
    assert page_of(pages, 0) == (1, 0)
    assert page_of(pages, 150) == (3, 48)


def test_long_paragraphs_start_their_own_chunks_and_short_ones_are_packed() -> None:
    tokenizer = get_tokenizer("words")
    # 60 + 30 tokens would fit in one 100-token chunk, but the first is over half the maximum
    long_paragraphs = ["Alpha beta gamma delta epsilon. " * 10, "Zeta eta theta iota kappa. " * 5]
    text = "\n\n".join(p.strip() for p in long_paragraphs)
    chunks, _ = chunk_text(text, tokenizer, ChunkSettings(max_tokens=100, min_tokens=2))
    assert [text[c.start:c.end] for c in chunks] == [p.strip() for p in long_paragraphs]
    short = "\n\n".join(f"Point {i} is short." for i in range(6))
    chunks, _ = chunk_text(short, tokenizer, ChunkSettings(max_tokens=100, min_tokens=2))
    assert len(chunks) == 1
