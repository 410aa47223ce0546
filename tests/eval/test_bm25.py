"""BM25: the analyzer, the BM25Okapi mode against a reimplementation and rank_bm25 itself."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from irforge.core.records import Doc, Query
from irforge.retrievers import get_retriever
from irforge.retrievers.bm25 import Analyzer, BM25Retriever

DOCS = [
    Doc("d1", "the cat sat on the mat with another cat"),
    Doc("d2", "dogs and cats are friends"),
    Doc("d3", "a mat is a flat piece of fabric"),
    Doc("d4", "the cat and the dog"),
    Doc("d5", "stock markets fell sharply on monday"),
]
QUERIES = [Query("q1", "cat on a mat"), Query("q2", "cat cat dog"), Query("q3", "markets"),
           Query("q4", "unknownword")]


def reference_okapi(corpus: list[list[str]], query: list[str], k1=1.5, b=0.75, eps=0.25):
    """BM25Okapi written out from its definition (idf floor for common terms)."""
    n = len(corpus)
    df = Counter(t for doc in corpus for t in set(doc))
    idf = {t: math.log((n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
    floor = eps * sum(idf.values()) / len(idf)
    idf = {t: floor if v < 0 else v for t, v in idf.items()}
    avgdl = sum(len(doc) for doc in corpus) / n
    out = []
    for doc in corpus:
        tf = Counter(doc)
        out.append(sum(idf.get(q, 0.0) * tf[q] * (k1 + 1)
                       / (tf[q] + k1 * (1 - b + b * len(doc) / avgdl)) for q in query))
    return np.array(out)


def test_analyzer_lowercases_drops_stopwords_and_stems():
    assert Analyzer()("The Cats are Running") == ["cat", "run"]
    assert Analyzer(stopwords=None, stemmer=None)("The Cats") == ["the", "cats"]
    assert Analyzer(stopwords=("cats",), stemmer=None)("The Cats") == ["the"]


def test_okapi_mode_equals_the_definition_with_negative_idf_floor():
    analyzer = Analyzer(stopwords=None, stemmer=None)
    retriever = BM25Retriever(method="okapi", analyzer=analyzer)
    retriever.index(DOCS)
    corpus = [analyzer(d.text) for d in DOCS]
    # "the" is in 3 of 5 docs: its idf is negative and must be floored
    assert math.log((5 - 3 + 0.5) / (3 + 0.5)) < 0
    for query in QUERIES:
        expected = reference_okapi(corpus, analyzer(query.text))
        np.testing.assert_allclose(retriever.score_all(query), expected, rtol=1e-12, atol=1e-12)
    the_query = Query("qt", "the cat")
    np.testing.assert_allclose(retriever.score_all(the_query),
                               reference_okapi(corpus, ["the", "cat"]), rtol=1e-12)


def test_okapi_mode_equals_rank_bm25():
    rank_bm25 = pytest.importorskip("rank_bm25")
    analyzer = Analyzer()
    retriever = BM25Retriever(method="okapi", analyzer=analyzer)
    retriever.index(DOCS)
    peer = rank_bm25.BM25Okapi([analyzer(d.text) for d in DOCS])
    for query in [*QUERIES, Query("qt", "the cat and the dog")]:
        np.testing.assert_allclose(retriever.score_all(query),
                                   peer.get_scores(analyzer(query.text)), rtol=1e-12,
                                   atol=1e-12)


def test_search_returns_top_k_run_best_first():
    retriever = get_retriever("bm25")
    retriever.index(DOCS)
    run = retriever.search(QUERIES, k=2)
    assert next(iter(run.scores["q3"])) == "d5"
    assert len(run.scores["q1"]) == 2
    top_q1 = run.ranked("q1")[0][0]
    assert top_q1 in {"d1", "d3"}
    assert all(score == 0.0 for score in run.scores["q4"].values())


def test_spec_options_select_method():
    assert get_retriever("bm25:okapi").name == "bm25-okapi"
    with pytest.raises(ValueError, match="bm25 method"):
        get_retriever("bm25:nonsense")
