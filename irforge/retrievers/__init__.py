"""First-stage retrievers, built from specs like ``"bm25"``, ``"dense:PATH"``.

``get_retriever(spec)`` reads the registry below; heavy libraries load only when a retriever
is built. A package of its own, below ``eval`` (which scores their runs and reranks them,
``irforge.eval.rerankers.get_reranker``), ``check`` (the ``target`` validator's index) and
``corpus`` (candidate pooling): it imports only ``core`` and ``scale``.
"""

from __future__ import annotations

from pathlib import Path

from irforge.retrievers.base import (
    Reranker,
    Retriever,
    UnknownRetrieverError,
    build,
    doc_text,
    split_spec,
)

BM25_METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+", "okapi")


def _bm25(argument: str | None):
    from irforge.retrievers.bm25 import BM25Retriever

    method = argument or "lucene"
    if method not in BM25_METHODS:
        raise UnknownRetrieverError(f"unknown bm25 method {method!r}: use one of "
                                    f"{', '.join(BM25_METHODS)} (okapi = rank_bm25 BM25Okapi)")
    return BM25Retriever(method=method)


def _dense(argument: str | None, search: str = "exact", cache_dir: Path | None = None,
           query_prefix: str = "", passage_prefix: str = ""):
    from irforge.retrievers.dense import DenseRetriever

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


__all__ = ["Reranker", "Retriever", "UnknownRetrieverError", "doc_text", "get_retriever"]
