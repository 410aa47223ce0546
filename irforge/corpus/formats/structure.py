"""Blocks of a document (headings, paragraphs, page/slide/sheet starts) -> one text with spans.

Every reader turns its format into :class:`Part` s; :func:`assemble` joins them with blank
lines and records, as character spans of the joined text, each section (the heading path in
force) and each page, slide or sheet. The extract log keeps both, so every passage can name
where it came from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

PARAGRAPH_BREAK = "\n\n"
SECTION_SEPARATOR = " > "


class TooLarge(Exception):
    """The document's text passed the per-document cap (``ExtractSettings.max_chars``)."""

    def __init__(self, limit: int, what: str = "characters of text") -> None:
        super().__init__(f"more than {limit:,} {what}")
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Part:
    """A paragraph of text, or a heading (``level`` 1-6), optionally starting page ``unit``;
    ``links`` counts the characters of its text that are link text (stub detection)."""

    text: str
    level: int = 0
    unit: int | None = None
    links: int = 0


@dataclass
class Assembled:
    """The joined text with section spans ``[label, start, end]`` and unit spans
    ``[number, start, end]`` (pages, slides or sheets; one unit 1 when the format has none)."""

    text: str = ""
    sections: list[list[Any]] = field(default_factory=list)
    pages: list[list[int]] = field(default_factory=list)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def assemble(parts: Iterable[Part], max_chars: int) -> Assembled:
    """Join ``parts`` into one text; raises :class:`TooLarge` as soon as it passes ``max_chars``."""
    pieces: list[str] = []
    size = 0
    headings: list[tuple[int, str]] = []
    sections: list[list[Any]] = []
    pages: list[list[int]] = []
    for part in parts:
        text = _squeeze(part.text)
        if part.unit is not None:
            if pages:
                pages[-1][2] = size
            pages.append([part.unit, size + (len(PARAGRAPH_BREAK) if pieces else 0), -1])
        if not text:
            continue
        start = size + (len(PARAGRAPH_BREAK) if pieces else 0)
        if part.level:
            headings = [(level, title) for level, title in headings if level < part.level]
            headings.append((part.level, text))
            if sections:
                sections[-1][2] = size
            sections.append([SECTION_SEPARATOR.join(t for _, t in headings), start, -1])
        if pieces:
            pieces.append(PARAGRAPH_BREAK)
        pieces.append(text)
        size = start + len(text)
        if size > max_chars:
            raise TooLarge(max_chars)
    if sections:
        sections[-1][2] = size
    if pages:
        pages[-1][2] = size
        for span in pages:
            span[1] = min(span[1], size)
    else:
        pages = [[1, 0, size]]
    return Assembled("".join(pieces), sections, [p for p in pages if p[2] > p[1]] or pages[:1])


def section_at(sections: list[list[Any]], offset: int) -> str | None:
    """The label of the section holding character ``offset`` (None before the first heading)."""
    found = None
    for label, start, _end in sections:
        if start > offset:
            break
        found = label
    return found
