"""Records of an InfoSearch benchmark: groups of positives per core query, and instructed units.

A *group* is one core query in one dimension with its positive documents, one per condition
value (given or rewritten), plus query hard negatives. A *unit* is one condition of a group:
the gold document, the instructed query and the reversed query (paper 2.1, 2.3).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from irforge.core.records import Doc

ORIGINS = ("given", "rewritten")
#: condition of a given document that is only rewritten into every value (a rewrite rule
#: without ``from``): its value is not known, so it is never asserted
SEED = "(seed)"


@dataclass(frozen=True)
class Member:
    """A positive document of a core query and the condition value it satisfies."""

    doc: Doc
    condition: str
    origin: str = "given"


@dataclass(frozen=True)
class Group:
    """A core query in one dimension with its positives and query hard negatives."""

    query_id: str
    query: str
    dimension: str
    members: tuple[Member, ...]
    hard_negatives: tuple[Doc, ...] = ()
    #: the core query's own form (irforge.prompts.forms.core_form_metadata: ``core_form``,
    #: ``core_stance``), recorded with each instructed query so it is grounded by that form
    core_form: Mapping[str, str] = field(default_factory=dict)
    #: id of the given document its members were all rewritten from (a dimension whose
    #: rewrite rule has no ``from``); no member, and out of the corpus, which holds its rewrites
    seed: str | None = None

    def member(self, condition: str) -> Member | None:
        return next((m for m in self.members if m.condition == condition), None)

    def with_members(self, members: tuple[Member, ...]) -> Group:
        return replace(self, members=members)

    def with_hard_negatives(self, docs: tuple[Doc, ...]) -> Group:
        return replace(self, hard_negatives=docs)


@dataclass(frozen=True)
class Unit:
    """One instructed query of a group: gold document, instructed and reversed text."""

    unit_id: str
    query_id: str
    dimension: str
    condition: str
    gold_doc_id: str
    instructed: str
    reversed: str
    phrasing: str = ""


def slug(text: str, limit: int = 40) -> str:
    """A short id-safe form of a condition value (keywords can be any text)."""
    cleaned = re.sub(r"[^\w]+", "-", text.lower(), flags=re.UNICODE).strip("-")
    return cleaned[:limit].rstrip("-") or "x"


def unit_id(query_id: str, dimension: str, condition: str, phrasing_index: int = 0) -> str:
    """``<query>-<dimension>-<condition>`` plus ``-p<k>`` for extra phrasings."""
    base = f"{query_id}-{dimension}-{slug(condition)}"
    return base if phrasing_index == 0 else f"{base}-p{phrasing_index + 1}"


def rewritten_doc_id(source_doc_id: str, dimension: str, condition: str) -> str:
    return f"{source_doc_id}--{dimension}-{slug(condition)}"


def hard_negative_doc_id(query_id: str, index: int) -> str:
    return f"{query_id}--hardneg-{index + 1}"
