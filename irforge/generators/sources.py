"""Generation sources for every method, drawn through the corpus's source selector
(:mod:`irforge.corpus.sources`): the chosen passages in rank order, each one's reason and
score for its queries' ``metadata.source``, and the chosen-vs-rejected table the manifest
records."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc
from irforge.corpus.sources import (
    Selection,
    SourceChoice,
    features,
    select_documents,
    select_passages,
)


def chosen_passages(docs: Sequence[Doc], need: str, seed: int,
                    count: int | None = None) -> tuple[list[Doc], Selection]:
    """The passages the selector chooses for ``need`` (all worth asking about when ``count``
    is None), best first and spread over documents, and the whole selection; a corpus with
    none is an error naming why its passages were rejected."""
    selection = select_passages(docs, len(docs) if count is None else count, need, seed)
    if docs and not selection.chosen:
        reasons = ", ".join(f"{reason}: {n}" for reason, n in selection.reasons().items())
        example = selection.rejected[0]
        raise IrforgeError(
            f"no passage of the corpus is worth generating from ({len(docs)} rejected: "
            f"{reasons}; e.g. {example.source_id}: {example.reason}); give longer prose "
            "passages (see docs/corpus.md, 'Choosing generation sources')")
    by_id = {doc.doc_id: doc for doc in docs}
    return [by_id[choice.source_id] for choice in selection.chosen], selection


def chosen_documents(docs: Sequence[Doc], n: int, limit: int | None,
                     seed: int) -> tuple[list[Doc], Selection]:
    """MultiConIR's sources: up to ``limit`` whole documents (passages grouped by ``doc_id``,
    joined in order) with ``n`` or more distinct attribute sentences, best first; a corpus
    with none is an error naming the documents that came closest and the ``n`` that works."""
    selection = select_documents(docs, len(docs) if limit is None else limit, n, seed)
    if not selection.chosen:
        raise IrforgeError(_no_document_message(docs, selection, n))
    by_id = {doc.doc_id: doc for doc in docs}
    out = []
    for choice in selection.chosen:
        passages = [by_id[i] for i in choice.passage_ids]
        out.append(Doc(choice.source_id, "\n\n".join(p.text for p in passages),
                       passages[0].title, {"doc_id": choice.source_id,
                                           "passage_ids": list(choice.passage_ids),
                                           "source": source_entry(choice)}))
    return out, selection


def _no_document_message(docs: Sequence[Doc], selection: Selection, n: int) -> str:
    by_id = {doc.doc_id: doc for doc in docs}
    counted = sorted(((features("\n\n".join(by_id[i].text for i in c.passage_ids)).attributes,
                       c.source_id) for c in selection.rejected if c.passage_ids),
                     key=lambda pair: (-pair[0], pair[1]))
    if not counted:
        return (f"no document of the corpus has {n} conditions: none has a passage worth "
                f"reading ({len(selection.rejected)} documents rejected: "
                + ", ".join(f"{r}: {k}" for r, k in selection.reasons().items()) + ")")
    closest = ", ".join(f"{doc_id} ({count})" for count, doc_id in counted[:3])
    best = counted[0][0]
    works = (f"n: {best} (or lower) would work" if best >= 2 else
             "no n would work (MultiConIR needs 2 or more); give documents with more "
             "distinct facts")
    return (f"no document of the corpus has {n} conditions (distinct attribute sentences); "
            f"closest: {closest}; {works}")


def source_entry(choice: SourceChoice) -> dict[str, Any]:
    """What a kept query records of its source (``metadata.source``)."""
    return {"id": choice.source_id, "reason": choice.reason, "score": choice.score}


def sources_of(selection: Selection) -> dict[str, dict[str, Any]]:
    """Each chosen source's :func:`source_entry`, by source id."""
    return {choice.source_id: source_entry(choice) for choice in selection.chosen}


def selection_table(selection: Selection, used: int | None = None) -> dict[str, Any]:
    """The manifest's chosen-vs-rejected table: counts, rejected counts by reason, and how
    many chosen sources the build used (when given)."""
    table: dict[str, Any] = {"chosen": len(selection.chosen),
                             "rejected": len(selection.rejected),
                             "rejected_by_reason": selection.reasons()}
    if used is not None:
        table["used"] = used
    return table
