"""A passage's document context: the labels and the document a query's words may come from.

A passage is read under its title and section path (``metadata.section``, "Guide > Basics"),
so their words ground a query as the passage's own do. The other passages of its document
(``metadata.doc_id``) ground names only: a short question may name what the whole document
is about ('Linux' of a Debian guide page that never says Linux), but what it asks (its
content words and numbers) must still come from the passage, or the question would be about
another passage of the document. A supported claim's names are its facts: only the document's
labels (its passages' titles and section paths) ground them, so a name swapped in from
another passage of the same document stays ungrounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from irforge.core.records import Doc


def labelled(doc: Doc) -> str:
    """The passage as grounding reads it: title, section path and text."""
    section = str(doc.metadata.get("section") or "")
    return "\n".join(part for part in (doc.title, section, doc.text) if part)


def document_of(doc: Doc) -> str | None:
    """The id of the document the passage was cut from, when the corpus records one."""
    value = doc.metadata.get("doc_id")
    return str(value) if value not in (None, "") else None


def document_texts(docs: Iterable[Doc]) -> dict[str, str]:
    """Document id -> its passages' labelled texts joined (documents of one passage left
    out: the passage already grounds its own words)."""
    grouped: dict[str, list[str]] = {}
    for doc in docs:
        key = document_of(doc)
        if key is not None:
            grouped.setdefault(key, []).append(labelled(doc))
    return {key: "\n".join(texts) for key, texts in grouped.items() if len(texts) > 1}


def names_context(passages: Sequence[Doc], documents: Mapping[str, str]) -> tuple[str, ...]:
    """The texts of the documents the passages were cut from (each once)."""
    keys = dict.fromkeys(key for doc in passages if (key := document_of(doc)) is not None)
    return tuple(documents[key] for key in keys if key in documents)


def document_labels(docs: Iterable[Doc]) -> dict[str, str]:
    """Document id -> the titles and section paths of its passages (each once): what the
    document is about, not what one of its passages states."""
    grouped: dict[str, dict[str, None]] = {}
    for doc in docs:
        key = document_of(doc)
        if key is not None:
            labels = grouped.setdefault(key, {})
            labels.update(dict.fromkeys(
                part for part in (doc.title, str(doc.metadata.get("section") or "")) if part))
    return {key: "\n".join(labels) for key, labels in grouped.items()}
