"""What every retriever and reranker offers, and the registry that builds them from a spec."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc, Query, Run


class UnknownRetrieverError(IrforgeError, ValueError):
    """A retriever or reranker spec that names nothing registered."""


class Retriever(Protocol):
    """Index a corpus once, then search it: ``Run.scores[query_id][doc_id] = score``."""

    name: str

    def index(self, docs: Sequence[Doc]) -> None: ...

    def search(self, queries: Sequence[Query], k: int) -> Run: ...


class Reranker(Protocol):
    """Rescore the top ``k`` documents of a first-stage run for each query; the rest of the
    run stays below them in its order. ``failed_calls`` counts model calls that failed."""

    name: str
    failed_calls: int

    def rerank(self, queries: Sequence[Query], docs_by_id: Mapping[str, Doc], run: Run,
               k: int) -> Run: ...


def doc_text(doc: Doc) -> str:
    """The text a model sees for a document: title and body, as BEIR evaluations do."""
    return f"{doc.title}\n{doc.text}" if doc.title else doc.text


def split_spec(spec: str) -> tuple[str, str | None]:
    """``"dense:PATH"`` -> ``("dense", "PATH")``; ``"bm25"`` -> ``("bm25", None)``."""
    kind, sep, argument = spec.partition(":")
    return kind.strip().lower(), (argument.strip() or None) if sep else None


Factory = Callable[[str | None], object]


def build(spec: str, registry: Mapping[str, Factory], what: str) -> object:
    """Look ``spec``'s kind up in ``registry`` and build it with the spec's argument."""
    kind, argument = split_spec(spec)
    factory = registry.get(kind)
    if factory is None:
        known = ", ".join(sorted(registry))
        raise UnknownRetrieverError(f"unknown {what} {spec!r}: use one of {known} "
                                    f"(with ':ARGUMENT' where it takes a model)")
    return factory(argument)
