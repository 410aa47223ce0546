"""Template and markup debris that is not the document's text, removed with general rules.

Two kinds of rule, both registries:

- :data:`SOURCE_RULES` rewrite the markup before it is parsed: unrendered template tags
  (Liquid/Jinja ``{{ ... }}``, ``{% ... %}``, ``{# ... #}``, Hugo shortcodes ``{{< ... >}}``,
  WordPress-style ``[name attr="..."]...[/name]``).
- :data:`PART_RULES` drop or cut blocks of the parsed document: navigation panels of generated
  HTML ("Next: ... Up: ... Previous: ..."), generator credits ("This document was generated
  using ..."), and the Project Gutenberg header, licence and footer around a book.

Each rule counts what it removed; the counts go to the extract row's ``removed`` field.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from irforge.corpus.formats.structure import Part

_HUGO = re.compile(r"\{\{[<%].*?[%>]\}\}", re.DOTALL)
_TAG = re.compile(r"\{%-?.*?-?%\}|\{\{-?.*?-?\}\}|\{#.*?#\}", re.DOTALL)
_SHORTCODE_NAME = r"[a-z][\w-]*"
_SHORTCODE_WITH_ATTRS = re.compile(
    rf"\[{_SHORTCODE_NAME}(?:\s+[\w-]+=(?:\"[^\"\n]*\"|'[^'\n]*'))+\s*/?\]")
_SHORTCODE_CLOSE = re.compile(rf"\[/({_SHORTCODE_NAME})\]")


def strip_template_tags(text: str) -> tuple[str, int]:
    """``text`` without unrendered template tags and shortcodes, and how many were removed
    (the text between an opening and a closing tag is kept: it is the page's text)."""
    count = 0

    def gone(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return " " if "\n" not in match.group(0) else "\n"

    text = _HUGO.sub(gone, text)
    text = _TAG.sub(gone, text)
    text = _SHORTCODE_WITH_ATTRS.sub(gone, text)
    closed = set(_SHORTCODE_CLOSE.findall(text))
    if closed:
        text = _SHORTCODE_CLOSE.sub(gone, text)
        bare = re.compile(r"\[(?:" + "|".join(map(re.escape, sorted(closed))) + r")\]")
        text = bare.sub(gone, text)
    return text, count


SOURCE_RULES: dict[str, Callable[[str], tuple[str, int]]] = {
    "template_tags": strip_template_tags,
}


def clean_source(text: str, removed: Counter[str]) -> str:
    """Apply every source rule to raw markup, counting removals into ``removed``."""
    for name, rule in SOURCE_RULES.items():
        text, count = rule(text)
        if count:
            removed[name] += count
    return text


_NAV_LABEL = re.compile(r"(?<![\w-])(next|previous|prev|up|contents|index|home|top|back)"
                        r"(?:\s*:|\s*»|\s*«)", re.IGNORECASE)
_NAV_WORDS = frozenset({"next", "previous", "prev", "up", "contents", "index", "home", "top",
                        "back", "toc", "table", "of"})
MAX_NAV_WORDS = 60


def _is_navigation(text: str) -> bool:
    """A navigation panel: two or more 'Next:'/'Up:'/'Previous:' labels in a short block, or
    a block of nothing but such words (the alt texts of arrow images)."""
    words = text.split()
    if not words or len(words) > MAX_NAV_WORDS:
        return False
    if len(_NAV_LABEL.findall(text)) >= 2:
        return True
    return all(word.strip("[]()|.:»«").lower() in _NAV_WORDS for word in words)


_CREDIT = re.compile(
    r"\b(?:generated|converted|created|produced)\s+(?:automatically\s+)?(?:using|by|with)\s+"
    r"(?:the\s+)?(?:LaTeX2HTML|Sphinx|Doxygen|Javadoc|pandoc|Hugo|Jekyll|MkDocs|texi2html|"
    r"makeinfo|DocBook)\b", re.IGNORECASE)


def drop_navigation(parts: list[Part]) -> tuple[list[Part], int]:
    kept = [part for part in parts if part.level or not _is_navigation(part.text)]
    return kept, len(parts) - len(kept)


def drop_generator_credits(parts: list[Part]) -> tuple[list[Part], int]:
    kept = [part for part in parts if not _CREDIT.search(part.text)]
    return kept, len(parts) - len(kept)


_GUTENBERG_START = re.compile(
    r"\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK[^*]*\*{3}"
    r"|\*END\*THE SMALL PRINT!.*?\*END\*", re.IGNORECASE | re.DOTALL)
_GUTENBERG_END = re.compile(
    r"\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK"
    r"|End of (?:the |this )?Project Gutenberg(?:'s|’s)? (?:E-?Book|E-?text)", re.IGNORECASE)


_GUTENBERG_CREDIT = re.compile(r"^(?:Produced by|E-?text prepared by|Transcribed (?:from|by))\b",
                               re.IGNORECASE)
_GUTENBERG_TITLE = re.compile(r"^The Project Gutenberg E-?Book,? of (?P<title>.+?)"
                              r"(?:,? by [^,]+)?\.?$", re.IGNORECASE)
CREDIT_WINDOW = 3  # the producers' credit is among the first blocks after the START marker


def book_title(title: str) -> str:
    """``The Project Gutenberg eBook of How To Listen To Music, by H. E. Krehbiel.`` -> the
    book's own title; any other title unchanged."""
    found = _GUTENBERG_TITLE.match(title.strip())
    return found.group("title").strip() if found else title


def cut_gutenberg(parts: list[Part]) -> tuple[list[Part], int]:
    """The book between Project Gutenberg's START and END markers: the header and licence
    before, and the footer and licence after, are dropped (a part holding a marker keeps
    the book's text on its side of the marker)."""
    start = next((i for i, part in enumerate(parts) if _GUTENBERG_START.search(part.text)), None)
    end = next((i for i, part in enumerate(parts)
                if (start is None or i >= start) and _GUTENBERG_END.search(part.text)), None)
    if start is None and end is None:
        return parts, 0
    out = list(parts)
    if end is not None:
        before = out[end].text[:_GUTENBERG_END.search(out[end].text).start()].strip()
        out = out[:end] + ([replace(out[end], text=before)] if before else [])
    if start is not None:
        after = out[start].text[_GUTENBERG_START.search(out[start].text).end():].strip()
        out = ([replace(out[start], text=after)] if after else []) + out[start + 1:]
        out = [part for index, part in enumerate(out)
               if index >= CREDIT_WINDOW or not _GUTENBERG_CREDIT.match(part.text.strip())]
    return out, max(1, len(parts) - len(out))


#: an e-text's production note ("Transcriber's Note: The music images ... were created using
#: Lilypond"): it describes the digitisation, never the book
_TRANSCRIBER_NOTE = re.compile(r"^\W*Transcriber(?:'|\u2019)?s?\W+Notes?\b", re.IGNORECASE)


def drop_transcriber_notes(parts: list[Part]) -> tuple[list[Part], int]:
    kept = [part for part in parts if not _TRANSCRIBER_NOTE.match(part.text.strip())]
    return kept, len(parts) - len(kept)


PART_RULES: dict[str, Callable[[list[Part]], tuple[list[Part], int]]] = {
    "gutenberg_boilerplate": cut_gutenberg,
    "transcriber_notes": drop_transcriber_notes,
    "navigation_panels": drop_navigation,
    "generator_credits": drop_generator_credits,
}


def clean_parts(parts: list[Part], removed: Counter[str]) -> list[Part]:
    """Apply every part rule in order, counting removed blocks into ``removed``; template tags
    left in any block's text are removed too (formats without a source pass)."""
    for name, rule in PART_RULES.items():
        parts, count = rule(parts)
        if count:
            removed[name] += count
    out = []
    for part in parts:
        text, count = strip_template_tags(part.text) if "{" in part.text or "[" in part.text \
            else (part.text, 0)
        if count:
            removed["template_tags"] += count
            part = replace(part, text=text)
        out.append(part)
    return out
