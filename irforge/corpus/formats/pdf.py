"""PDF reader: one PDF -> one clean text per document with page spans (DisastIR step 2).

DisastIR (Appendix A step 2) converts each PDF to plain text with PyMuPDF and removes tables
and figures. Per page: text lines inside ``page.find_tables()`` areas are dropped, image blocks
are ignored, repeated headers/footers and margin page numbers are removed, blocks are put in
reading order (multi-column aware, see :mod:`irforge.corpus.layout`) and hyphenated line
breaks are joined. Each page's span in the document text is kept. A file that cannot give text
is a skip row with its reason (encrypted, truncated, broken, empty, image-only, too-large).
``settings`` is the extract stage's :class:`irforge.corpus.extract.ExtractSettings`.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from irforge.core.errors import require
from irforge.corpus.formats.structure import TooLarge
from irforge.corpus.layout import (
    Block,
    Line,
    drop_lines,
    merge_paragraph_lines,
    page_text,
    reading_order,
    repeated_margin_keys,
)

PAGE_SEPARATOR = "\n\n"
_OUT_OF_MEMORY = re.compile(r"\b(m|re|c)alloc\b.*failed|out of memory", re.IGNORECASE)
PLACEHOLDER_TITLES = {"untitled", "(anonymous)", "anonymous", "(untitled)", "title", "document"}


def _skip(name: str, reason: str) -> dict[str, Any]:
    return {"file": name, "status": "skipped", "reason": reason}


def _not_pdf(data: bytes) -> str | None:
    """What a file named .pdf really is when it does not start like a PDF, else None."""
    head = data[:1024]
    if b"%PDF-" in head:
        return None
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    kind = ("an HTML page" if text.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))
            else "something else")
    return f"not a PDF: the file is {kind} (no %PDF- header); was an error page saved?"


def _page_blocks(page: Any) -> list[Block]:
    """The text blocks of a page with their lines' boxes (image blocks dropped)."""
    blocks = []
    for raw in page.get_text("dict", sort=False)["blocks"]:
        if raw.get("type") != 0:
            continue
        lines = tuple(Line(tuple(line["bbox"]), "".join(span["text"] for span in line["spans"]))
                      for line in raw["lines"])
        if any(line.text.strip() for line in lines):
            blocks.append(Block(tuple(raw["bbox"]), lines))
    return blocks


def _table_areas(page: Any) -> list[tuple[float, float, float, float]]:
    """Table areas found by ``page.find_tables`` (ruling lines), skipped on pages without any
    vector drawing: the default line strategy cannot find a table there, and it is slow."""
    try:
        if not page.get_cdrawings():
            return []
        return [tuple(table.bbox) for table in page.find_tables().tables]
    except Exception:  # table detection is best effort; the text is still worth having
        return []


def _page_join(before: str, after: str) -> str:
    """A space when the page ends mid-sentence (no closing punctuation), else a paragraph break."""
    runs_on = before[-1:].isalnum() or before[-1:] in ",;-–"
    return " " if runs_on and after[:1].isalnum() else PAGE_SEPARATOR


def extract_pdf(path: Path, settings: Any) -> dict[str, Any]:
    """One PDF file -> a document row, or a skip row with the reason."""
    path = Path(path)
    return extract_pdf_data(path.name, path.read_bytes(), settings)


def extract_pdf_data(name: str, data: bytes | Path, settings: Any
                     ) -> dict[str, Any]:
    """The bytes (or path) of the PDF file ``name`` -> a document row, or a skip row."""
    fitz = require("pymupdf", "corpus")
    if isinstance(data, Path):
        data = data.read_bytes()
    if not data:
        return _skip(name, "empty: the file has no bytes")
    not_pdf = _not_pdf(data)
    if not_pdf is not None:
        return _skip(name, not_pdf)
    if b"%%EOF" not in data[-4096:]:
        return _skip(name, "truncated: no %%EOF marker at the end (incomplete download?)")
    try:
        doc = fitz.open(stream=data, filetype="pdf")
    except Exception as exc:
        return _skip(name, f"broken: PyMuPDF cannot open it ({type(exc).__name__}: {exc})")
    with doc:
        if doc.needs_pass and not doc.authenticate(""):
            return _skip(name, "encrypted: a password is needed to read it")
        if doc.page_count == 0:
            return _skip(name, "empty: no pages")
        try:
            return _extract_pages(name, doc, settings)
        except (TooLarge, MemoryError):
            raise
        except Exception as exc:
            if _OUT_OF_MEMORY.search(str(exc)):
                raise MemoryError(str(exc)) from exc
            return _skip(name, f"broken: extraction failed ({type(exc).__name__}: {exc})")


def _inflated_size(data: bytes, limit: int) -> int:
    """How many bytes a Flate stream unpacks to, counting no further than ``limit + 1``."""
    inflater = zlib.decompressobj()
    total = len(inflater.decompress(data, limit + 1))
    while inflater.unconsumed_tail and total <= limit:
        total += len(inflater.decompress(inflater.unconsumed_tail, limit + 1 - total))
    return total


def content_bytes(doc: Any, page: Any, limit: int) -> int:
    """The unpacked size of a page's content streams and form XObjects, counted up to just
    past ``limit`` without unpacking more (a small PDF can hold a stream of gigabytes)."""
    xrefs = list(page.get_contents()) + [item[0] for item in page.get_xobjects()]
    total = 0
    for xref in dict.fromkeys(xrefs):
        try:
            if doc.xref_get_key(xref, "Filter")[1] == "/FlateDecode":
                total += _inflated_size(doc.xref_stream_raw(xref), limit - total)
            else:
                total += len(doc.xref_stream(xref) or b"")
        except zlib.error:
            continue  # a damaged stream: MuPDF reads what it can, as without this check
        if total > limit:
            break
    return total


def _extract_pages(name: str, doc: Any, settings: Any) -> dict[str, Any]:
    limit = int(settings.max_page_content_mb * 2**20)
    pages: list[list[Block]] = []
    oversized: set[int] = set()
    chars = 0
    for number, page in enumerate(doc, 1):
        if content_bytes(doc, page, limit) > limit:
            oversized.add(number)
            pages.append([])
            continue
        blocks = _page_blocks(page)
        chars += sum(len(line.text) for block in blocks for line in block.lines)
        if chars > settings.max_chars:
            raise TooLarge(settings.max_chars)
        pages.append(blocks)
    heights = [page.rect.height for page in doc]
    repeated = (repeated_margin_keys(pages, heights, settings.margin, settings.header_min_share)
                if settings.remove_headers else set())
    removed: Counter[str] = Counter()
    texts, skipped_pages = [], []
    for number, (page, blocks, height) in enumerate(zip(doc, pages, heights, strict=True), 1):
        if number in oversized:
            skipped_pages.append({"page": number, "reason": (
                f"too-large: its content streams unpack to more than "
                f"{settings.max_page_content_mb:g} MB (--max-page-content-mb)")})
            texts.append((number, ""))
            continue
        tables = _table_areas(page) if settings.remove_tables else []
        removed["tables"] += len(tables)
        kept, dropped = drop_lines(blocks, height, repeated, tables, settings.margin)
        removed.update(dropped)
        text = page_text(merge_paragraph_lines(reading_order(kept)))
        if not text and not blocks:
            reason = "image-only" if page.get_images() else "blank"
            skipped_pages.append({"page": number, "reason": reason})
        texts.append((number, text))
    return _document_row(name, texts, skipped_pages, removed, doc.metadata or {}, settings)


def _document_row(name: str, texts: Sequence[tuple[int, str]], skipped_pages: list[dict],
                  removed: Counter[str], metadata: dict, settings: Any
                  ) -> dict[str, Any]:
    full, spans = "", []
    for number, text in texts:
        if not text:
            continue
        if full:
            full += _page_join(full, text)
        spans.append([number, len(full), len(full) + len(text)])
        full += text
    title = _title(metadata)
    cut = leading_title_end(full, title)
    if cut:  # the title printed on page 1 stays in ``title`` only, not twice in the text
        full = full[cut:]
        spans = [[page, max(start - cut, 0), end - cut] for page, start, end in spans
                 if end > cut]
    if len(full.strip()) < settings.min_chars:
        if skipped_pages and all(p["reason"] == "image-only" for p in skipped_pages):
            return _skip(name, "image-only: no text layer on any page (OCR is not supported)")
        oversized = [p for p in skipped_pages if p["reason"].startswith("too-large")]
        if oversized:
            return _skip(name, f"too-large: {len(oversized)} page(s) skipped, "
                               + oversized[0]["reason"].removeprefix("too-large: "))
        return _skip(name, f"empty: fewer than {settings.min_chars} characters of text")
    return {"file": name, "status": "ok", "format": "pdf",
            "page_unit": "page", "title": title, "text": full, "pages": spans,
            "title_removed_from_text": bool(cut),
            "page_count": len(texts), "skipped_pages": skipped_pages,
            "removed": dict(sorted(removed.items()))}


def leading_title_end(text: str, title: str) -> int:
    """Where ``title`` ends when the text starts with it (any spacing, any case), else 0."""
    words = title.split()
    if not words:
        return 0
    pattern = r"\s*" + r"\s+".join(re.escape(word) for word in words) + r"[\s:.\-]*"
    found = re.match(pattern, text, flags=re.IGNORECASE)
    return found.end() if found else 0


def _title(metadata: dict) -> str:
    """The PDF's title field, unless it is a placeholder a writer put there."""
    title = str(metadata.get("title") or "").strip()
    return "" if title.lower() in PLACEHOLDER_TITLES else title
