"""Where a generator's judgment lands in the built folder: the (query id, corpus id) pair
people's labels are filed under.

Generators log some steps under their own working keys: an InfoSearch rewrite under the core
query (``q1``) and its source document, a MultiConIR hard negative under the condition and the
source document (``salt:c1``, ``salt``). Neither is a pair of the folder. One locator per
generator step (a registry keyed by the judgment's task) maps such a judgment to the folder's
query and corpus passage, so people's labels, ``judgments.jsonl`` and ``audit agreement`` name
real queries and documents. A judgment already on a folder pair, or of a task no locator
covers, keeps its ids. A working judgment its locator cannot place judged something that left
the folder (the rewrite of a unit whose instructed query was rejected, a hard-negative sentence
no written passage holds): it has no folder pair, so no item, no gold case and no agreement pair
is made of it (``locate`` returns None).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from irforge.core.records import Doc, Judgment, Query

Pair = tuple[str, str]


@dataclass(frozen=True)
class Folder:
    """The queries and corpus of a built folder, with the indexes the locators need."""

    queries: Mapping[str, Query]
    docs: Mapping[str, Doc] = field(default_factory=dict)

    @cached_property
    def instructed(self) -> dict[Pair, str]:
        """(core query id, gold doc id) -> the instructed query built from them."""
        out = {}
        for query_id, query in self.queries.items():
            core, gold = query.metadata.get("core_query_id"), query.metadata.get("gold_doc_id")
            if core and gold:
                out[(str(core), str(gold))] = query_id
        return out

    @cached_property
    def negatives(self) -> dict[tuple[str, int], str]:
        """(MultiConIR source document, conditions kept) -> the hard-negative passage d_j."""
        out = {}
        for doc_id, doc in self.docs.items():
            meta = doc.metadata or {}
            if meta.get("kind") == "hard_negative" and isinstance(meta.get("satisfied"), int):
                out[(str(meta.get("source_doc")), int(meta["satisfied"]))] = doc_id
        return out


def _instructed_query(judgment: Judgment, folder: Folder) -> Pair | None:
    """An InfoSearch rewrite: the instructed query whose gold passage the rewrite is."""
    query_id = folder.instructed.get((judgment.query_id, judgment.doc_id))
    return (query_id, judgment.doc_id) if query_id else None


def _condition_query(source: str, original: str, folder: Folder) -> tuple[str, int] | None:
    """The smallest query of ``source`` that asks for the condition stated by ``original``
    (the instruction style first), and that condition's 1-based position."""
    found = []
    for query_id, query in folder.queries.items():
        meta: Mapping[str, Any] = query.metadata or {}
        conditions = meta.get("conditions") or []
        if meta.get("source_doc") == source and original in conditions:
            found.append((len(conditions), meta.get("style") != "instruction", query_id,
                          conditions.index(original) + 1))
    if not found:
        return None
    _, _, query_id, position = min(found)
    return query_id, position


def _hard_negative_passage(judgment: Judgment, folder: Folder) -> Pair | None:
    """A MultiConIR hard-negative sentence for condition c_i: the passage d_{i-1} (keeps
    c_1..c_{i-1}, the first one it breaks is c_i) and the smallest query asking for c_i."""
    source = str(judgment.metadata.get("source_doc") or judgment.doc_id)
    original = judgment.metadata.get("original")
    if not isinstance(original, str):
        return None
    located = _condition_query(source, original, folder)
    if located is None:
        return None
    query_id, position = located
    doc_id = folder.negatives.get((source, position - 1))
    return (query_id, doc_id) if doc_id else None


LOCATORS: dict[str, Callable[[Judgment, Folder], Pair | None]] = {
    "instructions.rewrite": _instructed_query,
    "multicon.hard_negative": _hard_negative_passage,
}


def locate(judgment: Judgment, folder: Folder) -> Pair | None:
    """The folder's (query id, corpus id) a judgment is about; None for a working judgment of
    something that left the folder (see the module docstring)."""
    if judgment.query_id in folder.queries and (not folder.docs or judgment.doc_id in folder.docs):
        return judgment.query_id, judgment.doc_id
    locator = LOCATORS.get(judgment.task or "")
    if locator is None:
        return judgment.query_id, judgment.doc_id
    return locator(judgment, folder)
