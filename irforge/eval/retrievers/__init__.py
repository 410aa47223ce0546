"""Retrievers and rerankers, built from specs like ``"bm25"``, ``"dense:PATH"``.

``get_retriever(spec)`` and ``get_reranker(spec)`` read the registries below; heavy libraries
load only when a retriever is built.
"""

from __future__ import annotations

from pathlib import Path

from irforge.eval.retrievers.base import (
    Reranker,
    Retriever,
    UnknownRetrieverError,
    build,
    doc_text,
    split_spec,
)

BM25_METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+", "okapi")


def _bm25(argument: str | None):
    from irforge.eval.retrievers.bm25 import BM25Retriever

    method = argument or "lucene"
    if method not in BM25_METHODS:
        raise UnknownRetrieverError(f"unknown bm25 method {method!r}: use one of "
                                    f"{', '.join(BM25_METHODS)} (okapi = rank_bm25 BM25Okapi)")
    return BM25Retriever(method=method)


def _dense(argument: str | None, search: str = "exact", cache_dir: Path | None = None,
           query_prefix: str = "", passage_prefix: str = ""):
    from irforge.eval.retrievers.dense import DenseRetriever

    return DenseRetriever(model=argument, search=search, cache_dir=cache_dir,
                          query_prefix=query_prefix, passage_prefix=passage_prefix)


RETRIEVERS = {
    "bm25": _bm25,
    "dense": _dense,
    "dense-hnsw": lambda argument: _dense(argument, search="hnsw"),
}


def get_retriever(spec: str, cache_dir: Path | None = None, query_prefix: str = "",
                  passage_prefix: str = "") -> Retriever:
    """``"bm25"``, ``"bm25:okapi"``, ``"dense"`` (embedded MiniLM), ``"dense:PATH_OR_NAME"``,
    ``"dense-hnsw:PATH"``; ``cache_dir`` keeps dense embeddings on disk; the prefixes are the
    instructions some embedders expect (e5: ``"query: "`` / ``"passage: "``)."""
    kind, argument = split_spec(spec)
    if kind in ("dense", "dense-hnsw"):
        return _dense(argument, "hnsw" if kind == "dense-hnsw" else "exact", cache_dir,
                      query_prefix, passage_prefix)
    return build(spec, RETRIEVERS, "retriever")  # type: ignore[return-value]


def get_reranker(spec: str) -> Reranker:
    """``"cross-encoder:PATH"``, ``"llm-pointwise"`` (embedded GGUF via llama.cpp),
    ``"llm-pointwise-hf:PATH"`` (transformers), ``"llm-listwise[:MODEL]"`` (LLM engine)."""
    from irforge.eval.rerankers import RERANKERS

    return build(spec, RERANKERS, "reranker")  # type: ignore[return-value]


__all__ = ["Reranker", "Retriever", "UnknownRetrieverError", "doc_text", "get_reranker",
           "get_retriever"]
