"""One small typed record per concept that flows through a benchmark folder.

Records are frozen dataclasses: cheap to build, hashable ids, and explicit about fields.
Free-form, method-specific data (conditions, instruction mode, logical type, intent...)
lives in ``metadata`` so BEIR files stay loadable by BEIR and MTEB.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

JudgmentSource = Literal["llm", "human"]


@dataclass(frozen=True, slots=True)
class Doc:
    """A corpus passage: BEIR ``corpus.jsonl`` row."""

    doc_id: str
    text: str
    title: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Query:
    """A query: BEIR ``queries.jsonl`` row; method data (conditions, type...) in metadata."""

    query_id: str
    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Qrel:
    """A graded relevance label: one row of ``qrels/<split>.tsv``."""

    query_id: str
    doc_id: str
    relevance: int


@dataclass(frozen=True, slots=True)
class Judgment:
    """One label given by an LLM or a person, with what is needed to audit it."""

    query_id: str
    doc_id: str
    label: float
    source: JudgmentSource
    prompt_id: str | None = None
    model: str | None = None
    raw_output: str | None = None
    annotator: str | None = None
    task: str = "relevance"
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Failure:
    """An item a step could not produce, and why; kept in ``failures.jsonl``."""

    step: str
    item_id: str
    reason: str
    raw_output: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RunEntry:
    """One retrieved document for one query: a TREC run line."""

    query_id: str
    doc_id: str
    score: float


@dataclass(frozen=True, slots=True)
class Run:
    """A ranked list per query, as scores (pytrec_eval's dict-of-dicts shape)."""

    name: str
    scores: Mapping[str, Mapping[str, float]]

    @classmethod
    def from_entries(cls, name: str, entries: Iterable[RunEntry]) -> Run:
        scores: dict[str, dict[str, float]] = {}
        for entry in entries:
            scores.setdefault(entry.query_id, {})[entry.doc_id] = float(entry.score)
        return cls(name=name, scores=scores)

    def ranked(self, query_id: str) -> list[tuple[str, float]]:
        """Documents of one query best first; ties broken as trec_eval does (doc id descending).

        Every ranking in irforge (metrics, TREC run files, pools) follows this one rule.
        """
        docs = self.scores.get(query_id, {})
        return sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)

    def entries(self) -> Iterator[RunEntry]:
        for query_id in self.scores:
            for doc_id, score in self.ranked(query_id):
                yield RunEntry(query_id, doc_id, score)


def qrels_to_dict(qrels: Iterable[Qrel]) -> dict[str, dict[str, int]]:
    """Qrels in pytrec_eval's ``{query_id: {doc_id: relevance}}`` shape."""
    out: dict[str, dict[str, int]] = {}
    for qrel in qrels:
        out.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    return out
