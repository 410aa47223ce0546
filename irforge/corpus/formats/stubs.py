"""Stub documents: pages with no text worth a passage, skipped with the reason.

A registry of rules, each reading the cleaned blocks of one document (and its front matter):
a redirect page, a page with no body after its front matter, a page that is only links, and
a page that is only a list of short entries (a table of contents or a back-of-book index).
The first rule that fires gives the skip reason (``stub: ...``), logged like every other skip.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from irforge.corpus.formats.structure import Part

LINK_SHARE = 0.8  # a page whose body text is at least this much link text is only links,
MIN_PROSE_BLOCKS = 2  # ... unless it still holds this many paragraphs of sentences
LIST_MIN_ENTRIES = 8
LIST_MAX_MEDIAN_WORDS = 6
LIST_MAX_PROSE_SHARE = 0.2
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*$")
_PAGE_REFERENCE = re.compile(r"(?:\b\d+(?:[-–]\d+)?|\b[ivxlc]+)\s*[,.;]?$", re.IGNORECASE)
_CONTENTS_TITLE = re.compile(r"^(?:table of )?contents?$|^toc$|^inhalt", re.IGNORECASE)
_INDEX_TITLE = re.compile(r"^(?:general |subject )?index$", re.IGNORECASE)


@dataclass(frozen=True)
class Page:
    """What the stub rules read: the cleaned blocks, the title, the front matter's redirect
    target (or an HTML refresh target), whether front matter was present, the minimum text,
    and the share of link text when the reader measured it on the source (HTML)."""

    parts: list[Part]
    title: str = ""
    redirect: str = ""
    front_matter: bool = False
    min_chars: int = 20
    link_share: float | None = None
    paged: bool = False  # slides, sheets, chapters: short entries are their nature, not a stub

    @property
    def body(self) -> list[Part]:
        return [part for part in self.parts if not part.level and part.text.strip()]

    @property
    def headings(self) -> list[str]:
        return [part.text.strip() for part in self.parts if part.level]


def redirect(page: Page) -> str | None:
    if page.redirect:
        return f"stub: a redirect page (to {page.redirect[:120]}), not a document"
    return None


def no_body(page: Page) -> str | None:
    chars = sum(len(part.text.strip()) for part in page.body)
    if page.front_matter and chars < page.min_chars:
        return (f"stub: no body after the front matter ({chars} characters of text, fewer "
                f"than {page.min_chars})")
    return None


def only_links(page: Page) -> str | None:
    share = page.link_share
    if share is None:
        chars = sum(len(part.text) for part in page.body)
        share = sum(min(part.links, len(part.text)) for part in page.body) / chars if chars \
            else 0.0
    prose = sum(_prose(part) for part in page.body)
    if share >= LINK_SHARE and prose < MIN_PROSE_BLOCKS:
        return f"stub: only links ({share:.0%} of its text is link text)"
    return None


def _prose(part: Part) -> bool:
    return len(part.text.split()) >= 8 and bool(_SENTENCE_END.search(part.text.strip()))


def entry_list(page: Page) -> str | None:
    """A contents or index page: many short entries and almost no sentences (not a deck,
    a workbook or a page that is mostly a table: their short lines are their content)."""
    body = page.body
    if page.paged or len(body) < LIST_MIN_ENTRIES:
        return None
    if sum(" | " in part.text for part in body) * 2 >= len(body):
        return None
    chars = sum(len(part.text) for part in body)
    prose = sum(len(part.text) for part in body if _prose(part))
    median = statistics.median(len(part.text.split()) for part in body)
    if median > LIST_MAX_MEDIAN_WORDS or prose / chars > LIST_MAX_PROSE_SHARE:
        return None
    names = [page.title, *page.headings[:2]]
    referenced = sum(bool(_PAGE_REFERENCE.search(part.text.strip())) for part in body)
    if any(_INDEX_TITLE.match(name.strip()) for name in names) or referenced > len(body) / 2:
        what = "an index"
    elif any(_CONTENTS_TITLE.match(name.strip()) for name in names):
        what = "a table of contents"
    else:
        what = "a list of short entries"
    return (f"stub: {what} ({len(body)} entries of median {median:g} words, "
            f"{prose / chars:.0%} of the text in sentences)")


STUB_RULES: dict[str, Callable[[Page], str | None]] = {
    "redirect": redirect,
    "no_body": no_body,
    "only_links": only_links,
    "entry_list": entry_list,
}


def stub_reason(page: Page) -> str | None:
    """The skip reason of a stub page, or None for a document worth reading."""
    for rule in STUB_RULES.values():
        reason = rule(page)
        if reason:
            return reason
    return None
