"""Readers for documents people keep in folders: Markdown, reST, HTML, Word, PowerPoint, Excel,
EPUB and plain text. Each one returns an extract-log row (or a skip row with the reason).

Word, PowerPoint, Excel and EPUB files are zip archives: their unpacked size is checked before
any parser opens them (``8 x max_chars`` bytes), first as declared, then measured while each
member is inflated a block at a time (a member that understates its size is stopped at the cap
or fails its checksum), so a zip bomb is skipped, never unpacked whole.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from irforge.core.errors import require
from irforge.corpus.formats.debris import book_title, clean_parts, clean_source
from irforge.corpus.formats.frontmatter import FrontMatter, passage_fields, split_front_matter
from irforge.corpus.formats.markup import markdown_parts, rst_parts
from irforge.corpus.formats.page_debris import clean_tree
from irforge.corpus.formats.structure import Part, TooLarge, assemble
from irforge.corpus.formats.stubs import Page, stub_reason
from irforge.corpus.formats.text import decode_file

BYTES_PER_CHAR_CAP = 8  # markup and unpacked archives may hold 8 bytes per character of text


def markup_limit(settings: Any) -> int:
    """The most bytes of markup (HTML, unpacked Office/EPUB XML) read for one document."""
    return BYTES_PER_CHAR_CAP * int(settings.max_chars)


def _size(source: Path | bytes) -> int:
    return len(source) if isinstance(source, bytes | bytearray) else Path(source).stat().st_size


def _bytes(source: Path | bytes) -> bytes:
    return bytes(source) if isinstance(source, bytes | bytearray) else Path(source).read_bytes()


def _stream(source: Path | bytes) -> Any:
    return io.BytesIO(source) if isinstance(source, bytes | bytearray) else str(source)


INFLATE_BLOCK = 1 << 16


def check_archive(source: Path | bytes, settings: Any, kind: str) -> None:
    """Refuse a zip-based file that is not a zip, or that unpacks past the markup limit: as
    declared, then as measured while inflating (a lying header cannot slip past the cap)."""
    cap = markup_limit(settings)
    try:
        archive = zipfile.ZipFile(_stream(source))
    except zipfile.BadZipFile as exc:
        raise ValueError(f"broken: not a valid {kind} file (it is not a zip archive)") from exc
    with archive:
        declared = sum(info.file_size for info in archive.infolist())
        if declared > cap:
            raise TooLarge(cap, f"bytes unpacked ({declared:,} declared)")
        inflated = 0
        for info in archive.infolist():
            try:
                with archive.open(info) as member:
                    while block := member.read(INFLATE_BLOCK):
                        inflated += len(block)
                        if inflated > cap:
                            raise TooLarge(cap, f"bytes unpacked (measured while inflating; "
                                                f"the archive declares {declared:,})")
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError,
                    RuntimeError) as exc:  # RuntimeError: an encrypted member
                raise ValueError(f"broken: {info.filename!r} in this {kind} file does not "
                                 f"inflate to what it declares ({exc})") from exc


def row(name: str, fmt: str, title: str, parts: Iterable[Part], settings: Any,
        unit: str | None = None, front: FrontMatter | None = None, redirect: str = "",
        removed: Counter[str] | None = None, link_share: float | None = None,
        heading_title: bool = True, **extra: Any) -> dict[str, Any]:
    """The extract-log row of one document assembled from ``parts``: debris removed
    (:mod:`~irforge.corpus.formats.debris`), a stub skipped with its reason
    (:mod:`~irforge.corpus.formats.stubs`), front-matter fields kept as ``metadata``."""
    removed = Counter() if removed is None else removed
    listed = clean_parts(list(parts), removed)
    front = front or FrontMatter()
    if not title and heading_title:
        title = _first_heading(listed)
    title = book_title(" ".join(title.split()))
    stub = stub_reason(Page(listed, title, redirect or front.redirect, front.present,
                            int(settings.min_chars), link_share, paged=unit is not None))
    if stub:
        return {"file": name, "status": "skipped", "reason": stub}
    built = assemble(listed, int(settings.max_chars))
    if len(built.text.strip()) < settings.min_chars:
        return {"file": name, "status": "skipped",
                "reason": f"empty: fewer than {settings.min_chars} characters of text"}
    out = {"file": name, "status": "ok", "format": fmt, "title": title,
           "text": built.text, "pages": built.pages, "page_unit": unit,
           "sections": built.sections, "page_count": len(built.pages), "skipped_pages": [],
           "removed": dict(sorted(removed.items())), **extra}
    if front.data:
        out["metadata"] = passage_fields(front.data)
    if front.warning:
        out.setdefault("warnings", []).append(front.warning)
    return out


def _first_heading(parts: list[Part]) -> str:
    return next((part.text for part in parts if part.level == 1), "")


def read_markdown(name: str, source: Path | bytes, settings: Any) -> dict[str, Any]:
    """Front matter parsed into metadata (its ``title`` is the title), template tags removed,
    then CommonMark blocks; the first level-1 heading is the title when there is no other."""
    decoded = decode_file(source, int(settings.max_chars))
    front = split_front_matter(decoded.text)
    removed: Counter[str] = Counter()
    parts = list(markdown_parts(clean_source(front.body, removed)))
    return row(name, "markdown", front.title, parts, settings, front=front, removed=removed,
               encoding=decoded.encoding, **_warned(decoded.warning))


def read_rst(name: str, source: Path | bytes, settings: Any) -> dict[str, Any]:
    decoded = decode_file(source, int(settings.max_chars))
    parts = list(rst_parts(decoded.text))
    return row(name, "rst", "", parts, settings,
               encoding=decoded.encoding, **_warned(decoded.warning))


def _warned(warning: str) -> dict[str, Any]:
    return {"warnings": [warning]} if warning else {}


_REFRESH = re.compile(r"^\s*\d+\s*;\s*url\s*=\s*(\S+)", re.IGNORECASE)


def _refresh_target(tree: Any) -> str:
    """Where an HTML ``<meta http-equiv="refresh" content="0; url=...">`` sends readers."""
    for meta in tree.iter("meta"):
        if str(meta.get("http-equiv", "")).lower() == "refresh":
            found = _REFRESH.match(str(meta.get("content", "")))
            if found:
                return found.group(1).strip("'\"")
    return ""


def _link_share(tree: Any) -> float:
    """The share of the page body's visible text that is link text (nothing is removed
    first: a page of navigation and contents links is all links)."""
    body = tree.find(".//body")
    if body is None:
        return 0.0
    total = len("".join(body.itertext()).split())
    linked = sum(len("".join(link.itertext()).split()) for link in body.iter("a"))
    return min(1.0, linked / total) if total else 0.0


_HEADING_MARK = "IRFORGEHEADING"
_MARKED = re.compile(rf"^{_HEADING_MARK}([1-6])X\s*")


def _mark_headings(tree: Any) -> None:
    """Turn each ``<h1>``-``<h6>`` into a marked paragraph: trafilatura keeps main-content
    paragraphs but drops many headings (those holding anchors, as latex2html and Project
    Gutenberg write them), and the section path needs them."""
    for heading in list(tree.iter("h1", "h2", "h3", "h4", "h5", "h6")):
        text = " ".join("".join(heading.itertext()).split())
        level = heading.tag[1]
        for child in list(heading):
            heading.remove(child)
        heading.tag, heading.text = "p", f"{_HEADING_MARK}{level}X {text}" if text else ""
        heading.attrib.clear()


def _headings_back(parts: Iterable[Part]) -> Iterator[Part]:
    """Marked paragraphs back to headings of their level."""
    for part in parts:
        found = _MARKED.match(part.text)
        if found is None:
            yield part
        elif part.text[found.end():].strip():
            yield Part(part.text[found.end():], level=int(found.group(1)))


def read_html(name: str, source: Path | bytes, settings: Any) -> dict[str, Any]:
    """Main content only (trafilatura): navigation, banners, ads and footers are dropped;
    the title is the page's ``<title>``, else its first level-1 heading."""
    trafilatura = require("trafilatura", "corpus")
    if _size(source) > markup_limit(settings):
        raise TooLarge(markup_limit(settings), "bytes of HTML")
    tree = _deep_html(_bytes(source))  # parsed once: the <title>, then the main content
    if tree is None:
        return {"file": name, "status": "skipped", "reason": "broken: not an HTML page"}
    page_title = " ".join((tree.findtext(".//title") or "").split())
    refresh = _refresh_target(tree)
    share = _link_share(tree)
    removed: Counter[str] = Counter()
    clean_tree(tree, removed)
    _mark_headings(tree)
    markdown = trafilatura.extract(tree, output_format="markdown", include_comments=False,
                                   include_tables=True, include_images=False,
                                   include_links=False, with_metadata=False)
    if not markdown:
        if refresh:
            return {"file": name, "status": "skipped",
                    "reason": f"stub: a redirect page (to {refresh[:120]}), not a document"}
        return {"file": name, "status": "skipped",
                "reason": "empty: no main content found in the HTML page"}
    parts = list(_headings_back(markdown_parts(markdown)))
    return row(name, "html", page_title, parts, settings, redirect=refresh,
               link_share=share, removed=removed)


def _deep_html(data: bytes) -> Any:
    """The page's lxml tree, parsed with libxml2's raised depth limit (``huge_tree``: 2,048
    levels instead of 256, still bounded), so a page nested 300 levels deep keeps its text;
    decoded the way trafilatura decodes (its charset detection), None when not HTML."""
    from lxml import html as lxml_html
    from trafilatura.utils import decode_file as decode_html

    parser = lxml_html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                                  remove_comments=True, remove_pis=True, huge_tree=True)
    text = decode_html(data)
    try:
        tree = lxml_html.fromstring(text.encode("utf-8") if isinstance(text, str) else text,
                                    parser=parser)
    except (ValueError, lxml_html.etree.ParserError):
        return None
    return tree if tree is not None and len(tree) else None


def _docx_heading_level(style: str) -> int:
    if style == "Title":
        return 1
    if style.startswith("Heading "):
        number = style.removeprefix("Heading ").strip()
        return min(6, int(number)) if number.isdigit() else 0
    return 0


def _cells(cells: Iterable[Any]) -> str:
    seen: list[str] = []
    for cell in cells:
        text = " ".join(cell.text.split())
        if text and (not seen or seen[-1] != text):  # merged cells repeat their text
            seen.append(text)
    return " | ".join(seen)


def read_docx(name: str, source: Path | bytes, settings: Any) -> dict[str, Any]:
    """Paragraphs and tables in body order (python-docx); 'Heading N' styles are sections."""
    docx = require("docx", "corpus")
    check_archive(source, settings, "Word (.docx)")
    document = docx.Document(_stream(source))

    def parts() -> Iterator[Part]:
        for block in document.iter_inner_content():
            if hasattr(block, "rows"):
                for table_row in block.rows:
                    yield Part(_cells(table_row.cells))
            else:
                style = block.style.name if block.style is not None else ""
                yield Part(block.text, level=_docx_heading_level(style))

    return row(name, "docx", document.core_properties.title or "", parts(), settings)


def read_pptx(name: str, source: Path | bytes, settings: Any) -> dict[str, Any]:
    """One unit per slide (python-pptx): its title as a section, text frames, tables, notes."""
    pptx = require("pptx", "corpus")
    check_archive(source, settings, "PowerPoint (.pptx)")
    deck = pptx.Presentation(_stream(source))

    def parts() -> Iterator[Part]:
        for number, slide in enumerate(deck.slides, 1):
            yield Part("", unit=number)
            title = slide.shapes.title
            if title is not None and title.has_text_frame:
                yield Part(title.text_frame.text, level=1)
            for shape in slide.shapes:
                if title is not None and shape.shape_id == title.shape_id:
                    continue
                if shape.has_text_frame:
                    for paragraph in shape.text_frame.paragraphs:
                        yield Part("".join(run.text for run in paragraph.runs))
                elif getattr(shape, "has_table", False):
                    for table_row in shape.table.rows:
                        yield Part(_cells(table_row.cells))
            if slide.has_notes_slide:
                yield Part(slide.notes_slide.notes_text_frame.text)

    return row(name, "pptx", deck.core_properties.title or "", parts(), settings,
               unit="slide")


def read_xlsx(name: str, source: Path | bytes, settings: Any) -> dict[str, Any]:
    """One unit per sheet (openpyxl, read-only, cached values): the sheet name is a section,
    each row a line of its non-empty cells."""
    openpyxl = require("openpyxl", "corpus")
    check_archive(source, settings, "Excel (.xlsx)")
    book = openpyxl.load_workbook(_stream(source), read_only=True, data_only=True)

    def parts() -> Iterator[Part]:
        for number, sheet in enumerate(book.worksheets, 1):
            yield Part("", unit=number)
            yield Part(sheet.title, level=1)
            for values in sheet.iter_rows(values_only=True):
                cells = [str(value) for value in values if value not in (None, "")]
                if cells:
                    yield Part(" | ".join(cells))

    try:
        return row(name, "xlsx", book.properties.title or "", parts(), settings, unit="sheet",
                   heading_title=False)  # a sheet's name is not the workbook's title
    finally:
        book.close()


_EPUB_BLOCKS = ("h1", "h2", "h3", "h4", "h5", "h6", "p", "pre", "li", "dt", "dd", "td", "th",
                "blockquote")


def _epub_chapter_parts(content: bytes, removed: Counter[str]) -> Iterator[Part]:
    from lxml import html

    root = clean_tree(html.fromstring(content), removed)
    for element in root.iter(*_EPUB_BLOCKS):
        if any(child.tag in _EPUB_BLOCKS for child in element.iterdescendants()):
            continue  # a container: its inner blocks are read on their own
        tag = element.tag
        level = int(tag[1]) if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit() else 0
        yield Part(element.text_content(), level=level)


def read_epub(name: str, source: Path | bytes, settings: Any) -> dict[str, Any]:
    """Chapters in reading (spine) order (EbookLib); XHTML headings are sections, each chapter
    a unit."""
    epub = require("ebooklib.epub", "corpus")
    check_archive(source, settings, "EPUB (.epub)")
    if isinstance(source, bytes | bytearray):
        book = epub.read_epub(io.BytesIO(source), options={"ignore_ncx": True})
    else:
        book = epub.read_epub(str(source), options={"ignore_ncx": True})

    def parts() -> Iterator[Part]:
        number = 0
        for item_id, _linear in book.spine:
            item = book.get_item_with_id(item_id)
            if item is None or isinstance(item, epub.EpubNav) or "nav" in getattr(
                    item, "properties", ()):
                continue  # the table of contents repeats the chapter titles
            number += 1
            yield Part("", unit=number)
            yield from _epub_chapter_parts(item.get_content(), removed)

    removed: Counter[str] = Counter()
    titles = book.get_metadata("DC", "title")
    title = titles[0][0] if titles else ""
    return row(name, "epub", title, parts(), settings, unit="chapter", removed=removed)
