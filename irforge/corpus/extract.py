"""Stage 2, extract: PDFs (and .txt files) -> one clean text per document with page provenance.

DisastIR (Appendix A step 2) converts each PDF to plain text with PyMuPDF and removes tables
and figures. Per page: text lines inside ``page.find_tables()`` areas are dropped, image blocks
are ignored, repeated headers/footers and margin page numbers are removed, blocks are put in
reading order (multi-column aware, see :mod:`irforge.corpus.layout`) and hyphenated line
breaks are joined. Each page's span in the document text is kept, so every later passage can
name its file, page and character offsets. A file that cannot give text is skipped with a
reason (encrypted, truncated, broken, empty, image-only); it never stops the run.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from irforge.core.errors import require
from irforge.corpus.collect import url_of_files
from irforge.corpus.layout import (
    Block,
    Line,
    drop_lines,
    merge_paragraph_lines,
    page_text,
    reading_order,
    repeated_margin_keys,
)
from irforge.corpus.state import CorpusWork
from irforge.scale.executor import BatchJob, Executor, executor_for

SUFFIXES = (".pdf", ".txt")
PAGE_SEPARATOR = "\n\n"
PLACEHOLDER_TITLES = {"untitled", "(anonymous)", "anonymous", "(untitled)", "title", "document"}


@dataclass(frozen=True)
class ExtractSettings:
    """What to remove while extracting."""

    remove_tables: bool = True
    remove_headers: bool = True
    margin: float = 0.07
    header_min_share: float = 0.5
    min_chars: int = 20


# every character str.split() treats as whitespace -> " " (translate allocates no pieces)
_TO_SPACE = {ord(ch): " " for ch in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680"
             "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
             "\u2028\u2029\u202f\u205f\u3000"}
_SPACE_RUNS = re.compile(r"  +")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")


_ID_UNSAFE = re.compile(r"[^\w.\-]+")


def doc_id_of(path: Path) -> str:
    """The document id of an input file: its name (suffix included, so ``a.pdf`` and ``a.txt``
    differ) with whitespace and other unsafe characters replaced; a short hash of the name
    is added when anything was replaced, so distinct names never share an id."""
    name = Path(path).name
    safe = _ID_UNSAFE.sub("_", name)
    if safe == name:
        return name
    return f"{safe}-{hashlib.sha1(name.encode('utf-8')).hexdigest()[:8]}"


def _not_pdf(data: bytes) -> str | None:
    """What a file named .pdf really is when it does not start like a PDF, else None."""
    head = data[:1024]
    if b"%PDF-" in head:
        return None
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    kind = ("an HTML page" if text.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))
            else "something else")
    return f"not a PDF: the file is {kind} (no %PDF- header); was an error page saved?"


def _squeezed(text: str) -> str:
    """``" ".join(text.split())`` without a list of every word (megabyte paragraphs)."""
    return _SPACE_RUNS.sub(" ", text.translate(_TO_SPACE)).strip()


def _skip(name: str, reason: str) -> dict[str, Any]:
    return {"file": name, "status": "skipped", "reason": reason}


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


def extract_pdf(path: Path, settings: ExtractSettings) -> dict[str, Any]:
    """One PDF file -> a document row, or a skip row with the reason."""
    path = Path(path)
    return extract_pdf_data(path.name, path.read_bytes(), settings)


def extract_pdf_data(name: str, data: bytes, settings: ExtractSettings) -> dict[str, Any]:
    """The bytes of the PDF file ``name`` -> a document row, or a skip row with the reason."""
    fitz = require("pymupdf", "corpus")
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
        except Exception as exc:
            return _skip(name, f"broken: extraction failed ({type(exc).__name__}: {exc})")


def _extract_pages(name: str, doc: Any, settings: ExtractSettings) -> dict[str, Any]:
    pages = [_page_blocks(page) for page in doc]
    heights = [page.rect.height for page in doc]
    repeated = (repeated_margin_keys(pages, heights, settings.margin, settings.header_min_share)
                if settings.remove_headers else set())
    removed: Counter[str] = Counter()
    texts, skipped_pages = [], []
    for number, (page, blocks, height) in enumerate(zip(doc, pages, heights, strict=True), 1):
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
                  removed: Counter[str], metadata: dict, settings: ExtractSettings
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
        return _skip(name, f"empty: fewer than {settings.min_chars} characters of text")
    return {"file": name, "status": "ok", "doc_id": doc_id_of(Path(name)),
            "title": title, "text": full, "pages": spans, "title_removed_from_text": bool(cut),
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


MAX_TITLE_CHARS = 300  # a longer first line is text, not a title


def extract_txt(path: Path, settings: ExtractSettings) -> dict[str, Any]:
    """A UTF-8 text file: a short first line followed by more is the title, blank lines
    separate paragraphs; a BOM is dropped, and a file of one long line is all text."""
    path = Path(path)
    return extract_txt_data(path.name, path.read_bytes(), settings)


def extract_txt_data(name: str, data: bytes, settings: ExtractSettings) -> dict[str, Any]:
    """The bytes of the text file ``name`` -> a document row, or a skip row with the reason."""
    try:
        raw = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        return _skip(name, f"broken: not UTF-8 text (byte {exc.start}); re-encode it as UTF-8")
    title, _, body = raw.strip().partition("\n")
    if len(title) > MAX_TITLE_CHARS or not body.strip():
        title, body = "", raw
    del raw
    paragraphs = (_squeezed(p) for p in _PARAGRAPH_BREAK.split(body))
    text = "\n\n".join(p for p in paragraphs if p)
    if len(text) < settings.min_chars:
        return _skip(name, f"empty: fewer than {settings.min_chars} characters of text")
    return {"file": name, "status": "ok", "doc_id": doc_id_of(Path(name)), "title": title.strip(),
            "text": text, "pages": [[1, 0, len(text)]], "page_count": 1, "skipped_pages": [],
            "removed": {}}


def extract_data(name: str, data: bytes, settings: ExtractSettings) -> dict[str, Any]:
    """Dispatch on the file name's suffix: the pure step every executor runs per file."""
    reader = extract_txt_data if name.lower().endswith(".txt") else extract_pdf_data
    return reader(name, data, settings)


def extract_file(args: tuple[Path, ExtractSettings]) -> dict[str, Any]:
    """One file on disk -> its row (reads the file, then :func:`extract_data`)."""
    path, settings = args
    return extract_data(Path(path).name, Path(path).read_bytes(), settings)


class FileExtractor:
    """The batch function of the extract stage: ``(name, bytes)`` items -> rows."""

    def __init__(self, settings: ExtractSettings) -> None:
        self.settings = settings

    def __call__(self, files: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
        return [extract_data(name, data, self.settings) for name, data in files]


def input_files(folder: Path) -> list[Path]:
    return sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in SUFFIXES and p.is_file())


def _results(paths: list[Path], settings: ExtractSettings, executor: Executor
             ) -> Iterator[dict[str, Any]]:
    # one file a batch; a local worker process is replaced after 200 files (PyMuPDF leaks)
    job = BatchJob(partial(FileExtractor, settings), batch_size=1, max_batches_per_worker=200,
                   name="extract")
    return executor.map_files(job, paths)


def extract(work: CorpusWork, input_dir: Path | None = None,
            settings: ExtractSettings | None = None, workers: int | None = None,
            fresh: bool = False, executor: Executor | None = None) -> dict[str, Any]:
    """Extract every file not yet in ``extract/documents.jsonl``; returns manifest counts.

    Files are read and extracted by ``executor`` (default: the active one, else a process
    pool of ``workers``); rows are logged in file order whichever executor ran them."""
    settings = settings or ExtractSettings()
    folder = Path(input_dir) if input_dir else work.files_dir
    if not folder.is_dir():
        from irforge.core.errors import IrforgeError

        raise IrforgeError(f"{folder}: no such folder of PDFs; run 'irforge corpus collect' "
                           "first or pass --input DIR")
    work.start("extract", {**settings.__dict__, "input": str(folder.resolve())}, fresh=fresh)
    log = work.log("extract", "documents.jsonl")
    done = log.keys("file")
    todo = [path for path in input_files(folder) if path.name not in done]
    urls = url_of_files(work)
    with log.writer() as writer:
        for row in _results(todo, settings, executor_for(workers, executor)):
            if row["file"] in urls:
                row["source_url"] = urls[row["file"]]
            row["path"] = str((folder / row["file"]).resolve())
            writer.write(row)
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for row in log.rows():
        counts[row["status"]] += 1
        if row["status"] == "skipped":
            reasons[row["reason"].split(":")[0]] += 1
    summary = {"input": str(folder), "documents": counts.get("ok", 0),
               "skipped": counts.get("skipped", 0), "skip_reasons": dict(sorted(reasons.items())),
               "newly_extracted": len(todo), "settings": settings.__dict__}
    work.mark_done("extract", summary)
    return summary


def documents(work: CorpusWork) -> Iterator[dict[str, Any]]:
    """Stream the extracted documents (rows with status ok)."""
    return (row for row in work.log("extract", "documents.jsonl").rows() if row["status"] == "ok")
