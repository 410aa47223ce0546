"""HTML elements that are page furniture, not text, removed from the parsed tree by element,
class, role and structure (never by the words they hold).

:data:`TREE_RULES` run on an lxml tree (HTML pages, EPUB chapters) before its text is read:

- ``address_blocks``: ``<address>`` elements, the page's contact/author block;
- ``page_markers``: e-book page-number markers (``class="pagenum"``, ``epub:type="pagebreak"``,
  ``role="doc-pagebreak"``), removed so the words on either side join as they were written;
- ``footnote_marks``: footnote reference marks (``role="doc-noteref"``, a link holding only a
  superscript number), which otherwise glue onto the word before ("loader2.1");
- ``child_link_lists``: lists of links to sub-pages (a list marked as navigation or table of
  contents, or a list whose every item is only same-site links) with their short lead-in label
  ("Subsections", "Contents");
- ``glued_blocks``: block elements (``p``, ``div``, ``dt``, ``dd``, ``li``, ``td``, headings...)
  whose text touches a neighbour's get whitespace between them (counted, nothing removed).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "caption", "dd", "details", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "br"})
_PAGE_CLASS = re.compile(r"^(?:page-?num(?:ber)?s?|pg-?num|page-?break|pagebreak|page-?marker)$",
                         re.IGNORECASE)
_NAV_CLASS = re.compile(r"(?:child-?links|\btoc\b|table-?of-?contents|\bnav|menu|breadcrumb)",
                        re.IGNORECASE)
_NOTE_CLASS = re.compile(r"^(?:footnote-?ref|noteref|fn-?ref)$", re.IGNORECASE)
_NOTE_MARK = re.compile(r"^\[?[\d.,*\u2020\u2021\u00a7]{1,8}\]?$")
MAX_LABEL_WORDS = 3
_SENTENCE_END = re.compile(r"[.!?;:]$")


def _tag(element: Any) -> str:
    return element.tag.lower() if isinstance(element.tag, str) else ""


def _epub_type(element: Any) -> list[str]:
    """The words of an ``epub:type`` attribute, however the parser spelled its name."""
    for key, value in element.attrib.items():
        if str(key).lower() in ("epub:type", "{http://www.idpf.org/2007/ops}type"):
            return str(value).lower().split()
    return []


def _classes(element: Any) -> list[str]:
    return str(element.get("class", "")).split()


def _text(element: Any) -> str:
    return " ".join("".join(element.itertext()).split())


def _drop(elements: Iterable[Any]) -> int:
    """Remove each element, keeping its tail text where it stood; how many were removed."""
    count = 0
    for element in list(elements):
        if element.getparent() is not None:
            element.drop_tree()
            count += 1
    return count


def drop_addresses(tree: Any) -> int:
    return _drop(element for element in tree.iter() if _tag(element) == "address")


def _is_page_marker(element: Any) -> bool:
    if any(_PAGE_CLASS.match(name) for name in _classes(element)):
        return True
    if "pagebreak" in _epub_type(element):
        return True
    return str(element.get("role", "")).lower() == "doc-pagebreak"


def drop_page_markers(tree: Any) -> int:
    """Page markers go with their text ("[Pg 4]"); the tail joins the text before it directly,
    so ``they<span>[Pg 4]</span> shall`` reads "they shall" and a word split by a marker is
    whole again."""
    return _drop(element for element in tree.iter() if _is_page_marker(element))


def _is_footnote_mark(element: Any) -> bool:
    if _tag(element) != "a":
        return False
    if str(element.get("role", "")).lower() == "doc-noteref" \
            or "noteref" in _epub_type(element) \
            or any(_NOTE_CLASS.match(name) for name in _classes(element)):
        return True
    children = [child for child in element if isinstance(child.tag, str)]
    only_sup = (len(children) == 1 and _tag(children[0]) == "sup"
                and not (element.text or "").strip() and not (children[0].tail or "").strip())
    return only_sup and bool(_NOTE_MARK.match(_text(element)))


def drop_footnote_marks(tree: Any) -> int:
    return _drop(element for element in tree.iter() if _is_footnote_mark(element))


def _is_local(href: str) -> bool:
    return bool(href) and not re.match(r"^[a-z][a-z0-9+.-]*:", href, re.IGNORECASE)


def _links_only(item: Any) -> bool:
    """A list item whose visible text is all same-site link text (nested lists included)."""
    links = [link for link in item.iter() if _tag(link) == "a" and link.get("href")]
    if not links or not all(_is_local(str(link.get("href"))) for link in links):
        return False
    linked = sum(len(_text(link)) for link in links)
    return linked >= len(_text(item).replace(" ", "")) * 0.9 - 1 if _text(item) else False


def _is_link_list(element: Any) -> bool:
    if _tag(element) not in ("ul", "ol"):
        return False
    marks = " ".join([*_classes(element), str(element.get("id", "")),
                      str(element.get("role", ""))])
    if _NAV_CLASS.search(marks) or "toc" in _epub_type(element):
        return True
    items = [child for child in element if _tag(child) == "li"]
    return len(items) >= 2 and all(_links_only(item) for item in items)


def _lead_in(element: Any) -> Any:
    """The short label just before a list ("Subsections"): the previous element, with only
    whitespace between them, of at most three words and no sentence ending."""
    previous = element.getprevious()
    while previous is not None and _tag(previous) in ("br", "hr") and not (
            previous.tail or "").strip():
        previous = previous.getprevious()
    if previous is None or (previous.tail or "").strip() or not isinstance(previous.tag, str):
        return None
    text = _text(previous)
    if not text or len(text.split()) > MAX_LABEL_WORDS or _SENTENCE_END.search(text):
        return None
    if any(_tag(child) in BLOCK_TAGS - {"br"} for child in previous.iter() if child is not
           previous):
        return None
    return previous


def drop_child_link_lists(tree: Any) -> int:
    """Link lists nested in a kept link list go with it; each list's lead-in label too."""
    lists = [element for element in tree.iter() if _is_link_list(element)]
    outer = [element for element in lists
             if not any(_tag(parent) in ("ul", "ol") and parent in lists
                        for parent in element.iterancestors())]
    labels = [label for label in map(_lead_in, outer) if label is not None]
    return _drop(outer) + _drop(labels)


def separate_blocks(tree: Any) -> int:
    """Whitespace between block elements whose text would otherwise touch; how many
    boundaries were glued."""
    count = 0
    for element in tree.iter():
        if _tag(element) not in BLOCK_TAGS:
            continue
        previous, parent = element.getprevious(), element.getparent()
        if previous is not None:
            before = previous.tail or (_text(previous) if isinstance(previous.tag, str) else "")
            if before and not before[-1].isspace():
                previous.tail = (previous.tail or "") + "\n"
                count += 1
        elif parent is not None and parent.text and not parent.text[-1].isspace():
            parent.text += "\n"
            count += 1
        tail = element.tail or ""
        if tail and not tail[0].isspace():
            element.tail = "\n" + tail
            count += 1
    return count


TREE_RULES: dict[str, Callable[[Any], int]] = {
    "address_blocks": drop_addresses,
    "page_markers": drop_page_markers,
    "footnote_marks": drop_footnote_marks,
    "child_link_lists": drop_child_link_lists,
    "glued_blocks": separate_blocks,
}


def clean_tree(tree: Any, removed: Counter[str]) -> Any:
    """Apply every tree rule in order to ``tree`` (changed in place), counting into
    ``removed``; returns the tree."""
    for name, rule in TREE_RULES.items():
        count = rule(tree)
        if count:
            removed[name] += count
    return tree
