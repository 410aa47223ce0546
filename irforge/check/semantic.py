"""Meaning at phrase level, from the bundled all-MiniLM-L6-v2 (offline, irforge.corpus.embed).

Grounding asks it only what words cannot settle: whether a content word the passage does not
hold is a paraphrase of one of its words ("laptop" for "computer"), and how close a persona's
request or a refuted claim is to the passage's closest sentence. The thresholds were
calibrated on the labelled sets of benchmarks/validity.py (docs/generation.md gives the
measured separations); the model loads on first need (or in the background, :func:`warm`, when
a run's parallel stages share the gates), so a query grounded by its words never waits for it.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any

from irforge.check.text import STOPWORDS, words

#: a missing content word is a paraphrase when its cosine to a passage word reaches this
#: (labelled sets: valid paraphrases 0.71 to 0.88; below 0.7 valid and invalid words mix)
WORD_SIMILARITY = 0.7
#: a refuted claim is about its passage when its cosine to the passage's closest sentence
#: reaches this (labelled sets: valid refuted claims 0.60 to 0.90, unrelated claims 0.28 to
#: 0.40)
CLAIM_SIMILARITY = 0.55
#: a persona's request is carried by the passage when a sentence that asks (else any
#: sentence) reaches this cosine to a passage sentence (labelled sets: carried needs 0.53 and
#: up, needs the passage does not carry 0.15 and 0.48: a thin margin, see docs/generation.md)
REQUEST_SIMILARITY = 0.5
#: a capable model's request (not a claim) whose names and numbers are grounded is carried
#: by its passage when the whole request reaches this cosine to a window of one or two
#: passage sentences (labelled sets other than relay_toolshed: requests the reader judged
#: valid 0.57 to 0.70; unrelated or unanswerable requests 0.53 and below; docs/generation.md)
WINDOW_SIMILARITY = 0.55
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+")


#: padded tokens per forward pass (the retrievers' CPU default, 8,192, would still put a
#: passage and thirty short windows in one batch: 31 x 256 tokens)
_TOKEN_BUDGET = 2048
#: torch threads per encoding: a check encodes a few short texts at a time, where splitting
#: each product across cores costs more CPU than it saves (4x the CPU on a loaded 2-core
#: machine, docs/recipe.md "Concurrency") and leaves less for the run's other work
_THREADS = 1
_LOAD = threading.Lock()
_LOADED: list[Any] = []  # the encoder, once loaded
_WARMING: list[threading.Thread] = []


def _encoder() -> Any:
    """The bundled MiniLM (the eval's offline model) behind the retrievers' encoding pipeline
    (length-sorted token-budget batches, so one 256-token passage does not pad thirty short
    windows to its width), loaded once per process: a second thread asking during the load
    waits for it instead of loading its own."""
    with _LOAD:
        if not _LOADED:
            from irforge.core.models import minilm_path
            from irforge.retrievers.device import Placement
            from irforge.retrievers.encode import TextEncoder

            encoder = TextEncoder(str(minilm_path()), Placement("cpu", "float32"),
                                  batch_tokens=_TOKEN_BUDGET, threads=_THREADS)
            encoder.load()  # the model itself, so warm() loads it off the checks' path
            _LOADED.append(encoder)
        return _LOADED[0]


def warm() -> None:
    """Start loading the model in a background thread (once per process). A run whose
    stages share query gates calls it: loading imports torch and transformers (seconds, 20 s
    on a loaded 2-core machine), and a check that loads it holds the run's gate lock, which
    stalls every other stage's answers meanwhile."""
    with _LOAD:
        if _LOADED or _WARMING:
            return
        _WARMING.append(threading.Thread(target=_load_quietly, name="irforge-minilm",
                                         daemon=True))
    _WARMING[0].start()


def _load_quietly() -> None:
    # a failed load (the eval extra missing) is raised again, with its fix, by the check
    # that needs the model
    with contextlib.suppress(Exception):
        _encoder()


def _encode(texts: Sequence[str]) -> Any:
    """Unit-length vectors of ``texts``, in their order."""
    return _encoder()(texts)


_VECTORS: dict[str, Any] = {}
#: one encoding at a time: parallel methods validate outside the run's gate lock
#: (irforge/steps/gates.py), and a fast tokenizer refuses a second thread mid-call
_ENCODING = threading.Lock()


def vectors(texts: Sequence[str]) -> Any:
    """Unit-length vectors of ``texts`` (each text encoded once per process)."""
    import numpy as np

    if any(t not in _VECTORS for t in texts):
        with _ENCODING:
            todo = [t for t in dict.fromkeys(texts) if t not in _VECTORS]
            if todo:
                for text, vector in zip(todo, _encode(todo), strict=True):
                    _VECTORS[text] = vector
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([_VECTORS[t] for t in texts])


@lru_cache(maxsize=1024)
def phrases(passage: str) -> tuple[str, ...]:
    """The passage's content words and hyphenated compounds ("wood-winds"), each once (the
    model encodes each once per process; two-word phrases would double that work)."""
    return tuple(dict.fromkeys(w for w in words(passage) if w not in STOPWORDS and len(w) > 2))


def passage_sentences(passage: str) -> tuple[str, ...]:
    """The passage's sentences (and the passage itself, for what spans several)."""
    parts = [s.strip() for s in _SENTENCE.split(passage) if len(s.split()) >= 3]
    return tuple(dict.fromkeys([*parts, passage]))


def closest_phrase(term: str, passages: Sequence[str]) -> float:
    """The highest cosine of ``term`` to any phrase of ``passages``."""
    return _best_cosine(term, [p for passage in passages for p in phrases(passage)])


def closest_sentence(text: str, passages: Sequence[str]) -> float:
    """The highest cosine of ``text`` to a sentence of ``passages`` (or a whole passage)."""
    return _best_cosine(text, [s for passage in passages for s in passage_sentences(passage)])


def sentence_windows(passage: str) -> tuple[str, ...]:
    """The passage's sentences, each pair of adjacent sentences, and the passage itself (a
    need may span two sentences)."""
    parts = [s.strip() for s in _SENTENCE.split(passage) if s.strip()]
    pairs = [f"{a} {b}" for a, b in pairwise(parts)]
    return tuple(dict.fromkeys([*(p for p in parts if len(p.split()) >= 3), *pairs, passage]))


def closest_window(text: str, passages: Sequence[str]) -> float:
    """The highest cosine of ``text`` to a window of one or two sentences of ``passages``."""
    return _best_cosine(text, [w for passage in passages for w in sentence_windows(passage)])


def _best_cosine(text: str, candidates: Sequence[str]) -> float:
    """The highest cosine of ``text`` to any of ``candidates`` (0.0 when there are none)."""
    if not candidates:
        return 0.0
    return float((vectors(candidates) @ vectors([text])[0]).max())
