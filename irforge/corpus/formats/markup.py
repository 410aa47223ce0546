"""Markdown (markdown-it-py) and reStructuredText (docutils) -> parts, headings kept.

Both are parsed by their reference libraries, never by regular expressions: a heading becomes
a section of the document, paragraphs, list items, table rows and code blocks become
paragraphs, and inline markup (emphasis, links, images) is reduced to its visible text.
docutils runs with file inclusion and raw passthrough disabled, so a document cannot pull in
other files.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from irforge.core.errors import require
from irforge.corpus.formats.structure import Part

_BLOCK_INLINE = {"paragraph_open", "th_open", "td_open"}


def _inline(token: Any) -> tuple[str, int]:
    """The visible text of an inline token (emphasis and link targets dropped, image alt
    kept) and how many of its characters are link text."""
    out: list[str] = []
    links = depth = 0
    for child in token.children or ():
        piece = ""
        if child.type == "link_open":
            depth += 1
        elif child.type == "link_close":
            depth = max(0, depth - 1)
        elif child.type in ("text", "code_inline"):
            piece = child.content
        elif child.type in ("softbreak", "hardbreak"):
            piece = " "
        elif child.type == "image":
            piece = _inline_text(child)
        out.append(piece)
        if depth and piece.strip():
            links += len(piece)
    return "".join(out), links


def _inline_text(token: Any) -> str:
    return _inline(token)[0]


@lru_cache(maxsize=1)
def _markdown_parser() -> Any:
    """One CommonMark parser with tables per process (building one costs more than a page)."""
    markdown_it = require("markdown_it", "corpus")
    return markdown_it.MarkdownIt("commonmark").enable("table")


def markdown_parts(text: str) -> Iterator[Part]:
    """Headings and blocks of a Markdown text (CommonMark plus tables); front matter is cut
    before (:mod:`irforge.corpus.formats.frontmatter`)."""
    tokens = _markdown_parser().parse(text)
    row: list[str] | None = None
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            yield Part(_inline_text(tokens[index + 1]), level=int(token.tag[1:]))
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            yield Part(" | ".join(cell for cell in row if cell))
            row = None
        elif token.type in _BLOCK_INLINE and index + 1 < len(tokens):
            cell, links = _inline(tokens[index + 1])
            if row is not None:
                row.append(cell)
            else:
                yield Part(cell, links=links)
        elif token.type in ("fence", "code_block"):
            yield Part(token.content)


def rst_parts(text: str) -> Iterator[Part]:
    """Sections and blocks of a reStructuredText text (docutils doctree)."""
    require("docutils", "corpus")
    from docutils import nodes
    from docutils.core import publish_doctree

    tree = publish_doctree(text, settings_overrides={
        "report_level": 5, "halt_level": 5, "file_insertion_enabled": False,
        "raw_enabled": False, "doctitle_xform": False, "warning_stream": False})

    def walk(node: Any, depth: int) -> Iterator[Part]:
        for child in node.children:
            if isinstance(child, nodes.section):
                yield from walk(child, depth + 1)
            elif isinstance(child, nodes.title):
                yield Part(child.astext(), level=max(1, min(depth, 6)))
            elif isinstance(child, nodes.paragraph | nodes.literal_block | nodes.line_block
                            | nodes.term):
                yield Part(child.astext())
            elif isinstance(child, nodes.system_message | nodes.comment
                            | nodes.substitution_definition):
                continue
            elif isinstance(child, nodes.Element):
                yield from walk(child, depth)

    yield from walk(tree, 0)
