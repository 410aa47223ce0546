"""What a prompt shows above a passage: its document's title and section path, once.

Every template that shows a passage takes the lines :func:`passage_context` renders as its
``context`` variable (a logical passage as ``passage.context``), so a model sees which
document and which part of it a passage comes from the same way in every method.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from irforge.core.records import Doc

SECTION_JOIN = " > "  # how the corpus writes a heading path (docs/corpus.md)


def passage_context(title: str | None, section: str | None) -> str:
    """``Title: ...`` and ``Section: ...`` lines (newline-joined), each only when it has a
    value; a section path that starts with the title drops that repeated heading."""
    title = " ".join(str(title or "").split())
    parts = [" ".join(part.split()) for part in str(section or "").split(SECTION_JOIN)]
    parts = [part for part in parts if part]
    if parts and title and parts[0].casefold() == title.casefold():
        parts = parts[1:]
    lines = [f"Title: {title}" if title else "",
             f"Section: {SECTION_JOIN.join(parts)}" if parts else ""]
    return "\n".join(line for line in lines if line)


def doc_context(doc: Doc) -> str:
    """:func:`passage_context` of a corpus passage (its title, its ``metadata.section``)."""
    return passage_context(doc.title, _section(doc.metadata))


def _section(metadata: Mapping[str, Any] | None) -> str:
    value = (metadata or {}).get("section")
    return value if isinstance(value, str) else ""
