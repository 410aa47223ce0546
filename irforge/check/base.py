"""The validators' shared types: a :class:`Case` (a query with its fields, relevant passages and
source), the :class:`Context` (corpus, aliases, other queries, demonstrations), a
:class:`Finding`, and the registry a validator joins with :func:`validator` (run by
:mod:`irforge.check.suite`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from irforge.core.records import Doc, Query
from irforge.core.sources import source_doc_ids


@dataclass(frozen=True)
class Finding:
    """One rejection: the validator's name, the field it read, what is wrong, how to fix it."""

    validator: str
    field: str
    detail: str
    fix: str

    @property
    def reason(self) -> str:
        """The one-line failure reason generation records (``validator <name>: <detail>``)."""
        return f"validator {self.validator}: {self.detail}"


@dataclass(frozen=True)
class Case:
    """One query as the validators see it.

    ``fields`` maps a field name (``text``, ``need``, ``instruction``, ``answer``,
    ``condition 2``...) to its text; ``positives`` are the relevant passages (highest grade);
    ``source`` the passage it was written from, when known.
    """

    query: Query
    fields: Mapping[str, str]
    positives: tuple[Doc, ...] = ()
    source: Doc | None = None

    @property
    def text(self) -> str:
        return self.query.text

    @property
    def meta(self) -> Mapping[str, Any]:
        return self.query.metadata

    @property
    def grounds(self) -> tuple[Doc, ...]:
        """The passages a query's words must come from: its positives, else its source."""
        if self.positives:
            return self.positives
        return (self.source,) if self.source is not None else ()


@dataclass
class Context:
    """What validators know beyond one query: the corpus and the run's settings.

    ``target_k`` overrides the retrievability depth (None: scaled to the corpus size);
    ``prompts_dir`` adds a user prompt folder to the harvested demonstrations; ``profile``
    is the writing model's (irforge.llm.profile: ``small`` keeps grounding word-strict,
    None when unknown, as in ``irforge check``, where a query's ``demo_grade`` decides).
    """

    docs: Mapping[str, Doc] = field(default_factory=dict)
    language: str | None = None
    target_k: int | None = None
    prompts_dir: Path | None = None
    skip: frozenset[str] = frozenset()
    retrievers: tuple[str, ...] = ("bm25",)
    profile: str | None = None
    # examples a generator shows besides the templates' (a MultiConIR domain's), as
    # Demonstration records: the echo validator treats them like harvested ones
    extra_demonstrations: tuple[Any, ...] = ()
    ranks: dict[str, int | None] = field(default_factory=dict)
    # query id -> the target validator's record (ranks per retriever, k, corpus size)
    target_records: dict[str, dict[str, Any]] = field(default_factory=dict)

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        """Every lower-case word of the corpus."""
        from irforge.check.text import words

        return frozenset(w for doc in self.docs.values() for text in (doc.title, doc.text)
                         for w in words(text))

    @cached_property
    def vocabulary_roots(self) -> frozenset[str]:
        """The stems and word roots of every corpus word (irforge.check.morphology)."""
        from irforge.check.morphology import roots

        return frozenset(r for word in self.vocabulary for r in roots(word))

    @cached_property
    def stem_postings(self) -> Mapping[str, frozenset[str]]:
        """Content-word stem -> ids of the passages holding it (built on first need)."""
        from irforge.check.text import content_words, stem

        index: dict[str, set[str]] = {}
        for doc in self.docs.values():
            for word in set(content_words(f"{doc.title} {doc.text}")):
                index.setdefault(stem(word), set()).add(doc.doc_id)
        return {term: frozenset(ids) for term, ids in index.items()}

    @cached_property
    def documents(self) -> Mapping[str, str]:
        """Document id (a passage's metadata ``doc_id``) -> the text of all its passages
        (titles and section paths included), for corpora that record the document."""
        from irforge.check.document_context import document_texts

        return document_texts(self.docs.values())

    @cached_property
    def document_labels(self) -> Mapping[str, str]:
        """Document id -> the titles and section paths of its passages (what a supported
        claim's names may come from beyond its passage)."""
        from irforge.check.document_context import document_labels

        return document_labels(self.docs.values())

    @cached_property
    def collection_topics(self) -> Mapping[str, frozenset[str]]:
        """Source (top folder) -> the names most of its documents write: the collection's
        own topic, which grounds a name (irforge.check.collection)."""
        from irforge.check.collection import collection_topics

        return collection_topics(self.docs.values())

    def expected_language(self) -> str | None:
        """The corpus language (detected once, on first need, when not given)."""
        if self.language is None and self.docs:
            from irforge.check.query_rules import corpus_language

            self.language = corpus_language(doc.text for doc in self.docs.values())
        return self.language

    @cached_property
    def aliases(self) -> Any:
        from irforge.check.aliases import corpus_aliases

        return corpus_aliases(self.docs.values())

    @cached_property
    def demonstrations(self) -> Any:
        from irforge.check.demonstrations import harvest

        return (*harvest(self.prompts_dir), *self.extra_demonstrations)

    @cached_property
    def targets(self) -> Any:
        from irforge.check.target_index import TargetIndex

        return TargetIndex(list(self.docs.values()), self.target_k, self.retrievers)


Validator = Callable[[Case, Context], Iterable[Finding]]
VALIDATORS: dict[str, Validator] = {}
# validators that need the whole corpus (skipped where a caller has only one passage)
CORPUS_VALIDATORS = frozenset({"target"})


def validator(name: str) -> Callable[[Validator], Validator]:
    """Register a validator under ``name`` (``family.rule``, e.g. ``form.debris``)."""

    def register(function: Validator) -> Validator:
        if name in VALIDATORS:
            raise ValueError(f"validator {name!r} registered twice")
        VALIDATORS[name] = function
        return function

    return register


def source_of(query: Query, docs: Mapping[str, Doc]) -> Doc | None:
    """The passage a query was written from, when its metadata names one in the corpus
    (the first of :func:`irforge.core.sources.source_doc_ids`)."""
    return next((docs[doc_id] for doc_id in source_doc_ids(query.metadata) if doc_id in docs),
                None)
