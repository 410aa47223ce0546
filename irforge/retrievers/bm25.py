"""BM25 through bm25s, with a configurable analyzer and a rank_bm25 (BM25Okapi) scoring mode.

``method="okapi"`` reproduces ``rank_bm25.BM25Okapi`` exactly: idf ``log((N - n + .5) /
(n + .5))`` where negative values are replaced by ``epsilon`` times the mean idf of the
vocabulary, term weight ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``, repeated
query terms counted each time. The bm25s methods ("robertson", "lucene", "atire", "bm25l",
"bm25+") are passed through unchanged; note bm25s leaves out the ``(k1 + 1)`` factor, which
scales scores but not rankings.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from irforge.core.errors import require
from irforge.core.records import Doc, Query, Run
from irforge.retrievers.base import doc_text
from irforge.retrievers.gpu_memory import no_jax_preallocation

no_jax_preallocation()  # before anything here imports bm25s (and with it, maybe JAX)

TOKEN_PATTERN = r"(?u)\b\w\w+\b"


@dataclass(frozen=True)
class Analyzer:
    """Text -> tokens: lowercase, regex tokens, stopwords removed, then stemmed."""

    pattern: str = TOKEN_PATTERN
    stopwords: str | tuple[str, ...] | None = "en"
    stemmer: str | None = "english"
    lowercase: bool = True
    _stop: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.stopwords, str):
            words = frozenset(stopword_list(self.stopwords))
        else:
            words = frozenset(self.stopwords or ())
        object.__setattr__(self, "_stop", words)

    def __call__(self, text: str) -> list[str]:
        if self.lowercase:
            text = text.lower()
        tokens = [t for t in re.findall(self.pattern, text) if t not in self._stop]
        return self._stem(tokens)

    def _stem(self, tokens: list[str]) -> list[str]:
        if not self.stemmer or not tokens:
            return tokens
        stemmer = _stemmer(self.stemmer)
        return stemmer.stemWords(tokens)


_STOPWORD_LISTS = {"en": "EN", "english": "EN", "en_plus": "EN_PLUS", "de": "GERMAN",
                   "german": "GERMAN", "fr": "FRENCH", "french": "FRENCH", "es": "SPANISH",
                   "spanish": "SPANISH", "it": "ITALIAN", "italian": "ITALIAN",
                   "pt": "PORTUGUESE", "portuguese": "PORTUGUESE", "nl": "DUTCH",
                   "dutch": "DUTCH", "ru": "RUSSIAN", "russian": "RUSSIAN"}


def stopword_list(language: str) -> tuple[str, ...]:
    """bm25s's stopword list for a language code or name ("en", "german"...)."""
    name = _STOPWORD_LISTS.get(language.lower())
    if name is None:
        raise ValueError(f"no stopword list for {language!r}; use one of "
                         f"{', '.join(sorted(_STOPWORD_LISTS))}, a tuple of words, or None")
    return tuple(getattr(require("bm25s.stopwords", "eval"), f"STOPWORDS_{name}"))


_STEMMERS: dict[str, object] = {}


def _stemmer(language: str):
    if language not in _STEMMERS:
        stemmer_module = require("Stemmer", "eval")
        _STEMMERS[language] = stemmer_module.Stemmer(language)
    return _STEMMERS[language]


def okapi_idf(doc_freqs: Counter, n_docs: int, epsilon: float) -> dict[str, float]:
    """rank_bm25's BM25Okapi idf: negative values floored to ``epsilon * mean idf``."""
    idf = {t: math.log(n_docs - n + 0.5) - math.log(n + 0.5) for t, n in doc_freqs.items()}
    floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
    return {t: (floor if value < 0 else value) for t, value in idf.items()}


def _okapi_scores(corpus_tokens: Sequence[Sequence[str]], k1: float, b: float, epsilon: float):
    """The bm25s score matrix (CSC arrays) and vocabulary with BM25Okapi weights."""
    sparse = require("scipy.sparse", "eval")
    doc_freqs = Counter(t for tokens in corpus_tokens for t in set(tokens))
    idf = okapi_idf(doc_freqs, len(corpus_tokens), epsilon)
    vocab = {token: i for i, token in enumerate(sorted(idf))}
    lengths = np.array([len(tokens) for tokens in corpus_tokens], dtype=np.float64)
    avgdl = lengths.mean() if len(lengths) and lengths.sum() else 1.0
    rows, cols, weights = [], [], []
    for row, tokens in enumerate(corpus_tokens):
        norm = k1 * (1 - b + b * lengths[row] / avgdl)
        for token, tf in Counter(tokens).items():
            rows.append(row)
            cols.append(vocab[token])
            weights.append(idf[token] * tf * (k1 + 1) / (tf + norm))
    matrix = sparse.csc_matrix((weights, (rows, cols)), shape=(len(corpus_tokens), len(vocab)),
                               dtype=np.float64)
    scores = {"data": matrix.data, "indices": matrix.indices.astype(np.int32),
              "indptr": matrix.indptr.astype(np.int32), "num_docs": len(corpus_tokens)}
    return scores, vocab


class BM25Retriever:
    """Sparse retrieval with bm25s; ``method="okapi"`` matches rank_bm25's BM25Okapi."""

    def __init__(self, method: str = "lucene", k1: float = 1.5, b: float = 0.75,
                 epsilon: float = 0.25, analyzer: Analyzer | None = None) -> None:
        self.method, self.k1, self.b, self.epsilon = method, k1, b, epsilon
        self.analyzer = analyzer or Analyzer()
        self.name = f"bm25-{method}"
        self._model = None
        self._doc_ids: list[str] = []

    def index(self, docs: Sequence[Doc]) -> None:
        """Tokenize and index the documents (title + text)."""
        bm25s = require("bm25s", "eval")
        tokens = [self.analyzer(doc_text(doc)) for doc in docs]
        self._doc_ids = [doc.doc_id for doc in docs]
        if self.method == "okapi":
            model = bm25s.BM25(method="robertson", k1=self.k1, b=self.b, dtype="float64")
            model.scores, model.vocab_dict = _okapi_scores(tokens, self.k1, self.b,
                                                           self.epsilon)
            model.nonoccurrence_array = None  # what bm25s's own index() sets for robertson
        else:
            model = bm25s.BM25(method=self.method, k1=self.k1, b=self.b, dtype="float64")
            model.index(tokens, show_progress=False)
        self._model = model

    def score_all(self, query: Query) -> np.ndarray:
        """Scores of every indexed document for one query (index order)."""
        if self._model is None:
            raise RuntimeError("call index(docs) before searching")
        ids = self._model.get_tokens_ids(self.analyzer(query.text))
        if not ids:
            return np.zeros(len(self._doc_ids))
        return self._model.get_scores_from_ids(ids)

    def search(self, queries: Sequence[Query], k: int) -> Run:
        """Top ``k`` documents per query (documents with score 0 included only to fill k)."""
        scores: dict[str, dict[str, float]] = {}
        for query in queries:
            values = self.score_all(query)
            top = _top_k(values, k)
            scores[query.query_id] = {self._doc_ids[i]: float(values[i]) for i in top}
        return Run(name=self.name, scores=scores)


def _top_k(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest values, best first (stable on ties)."""
    k = min(k, len(values))
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    part = np.argpartition(-values, k - 1)[:k] if k < len(values) else np.arange(len(values))
    return part[np.argsort(-values[part], kind="stable")]
