"""Per-format extraction throughput of the extract stage against each library called
directly, on the mixed fixture of the tests scaled to ``--files`` files (default 1,000).

For every format the fixture's file is copied (with its text changed per copy) until the
formats together hold ``--files`` files; each copy is extracted once by irforge
(``extract_data``: the reader, caps, sections and spans) and once by the bare library call
that reader is built on. The ratio irforge/library is irforge's overhead; both run in this
process, one after the other, on the same files. With ``--peers`` the alternatives weighed in
docs/corpus.md (markitdown, BeautifulSoup, PyMuPDF for EPUB) are timed too where installed,
with the boilerplate phrases of the web page each one keeps. Run by hand::

    python benchmarks/corpus.py --formats 1000      # or: python benchmarks/corpus_formats.py
    python benchmarks/corpus_formats.py --files 200 --peers
"""

from __future__ import annotations

import argparse
import io
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_smoke import parse

FORMAT_FILES = {"markdown": "notes/plan.md", "rst": "notes/handbook.rst",
                "html": "web/heatwave.html", "docx": "reports/2026/briefing.docx",
                "pptx": "reports/routes.pptx", "xlsx": "reports/stock.xlsx",
                "epub": "books/storm guide.epub", "pdf": "reports/drought.pdf",
                "txt": "text/landslide.txt"}


_PARSERS: dict[str, Any] = {}


def _direct_markdown(path: Path) -> Any:
    from markdown_it import MarkdownIt

    if "md" not in _PARSERS:
        _PARSERS["md"] = MarkdownIt("commonmark").enable("table")
    return _PARSERS["md"].parse(path.read_text(encoding="utf-8"))


def _direct_rst(path: Path) -> Any:
    from docutils.core import publish_doctree

    return publish_doctree(path.read_text(encoding="utf-8"), settings_overrides={
        "report_level": 5, "file_insertion_enabled": False, "raw_enabled": False})


def _direct_html(path: Path) -> Any:
    import trafilatura

    return trafilatura.extract(path.read_bytes(), output_format="markdown")


def _direct_docx(path: Path) -> Any:
    import docx

    return [p.text for p in docx.Document(str(path)).paragraphs]


def _direct_pptx(path: Path) -> Any:
    import pptx

    return [shape.text_frame.text for slide in pptx.Presentation(str(path)).slides
            for shape in slide.shapes if shape.has_text_frame]


def _direct_xlsx(path: Path) -> Any:
    import openpyxl

    book = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    rows = [row for sheet in book.worksheets for row in sheet.iter_rows(values_only=True)]
    book.close()
    return rows


def _direct_epub(path: Path) -> Any:
    from ebooklib import epub
    from lxml import html

    book = epub.read_epub(str(path), options={"ignore_ncx": True})
    return [html.fromstring(book.get_item_with_id(item).get_content()).text_content()
            for item, _ in book.spine if book.get_item_with_id(item) is not None]


def _direct_pdf(path: Path) -> Any:
    import pymupdf

    with pymupdf.open(str(path)) as doc:
        return [page.get_text("dict") for page in doc]


def _direct_txt(path: Path) -> Any:
    return path.read_text(encoding="utf-8")


DIRECT: dict[str, Callable[[Path], Any]] = {
    "markdown": _direct_markdown, "rst": _direct_rst, "html": _direct_html,
    "docx": _direct_docx, "pptx": _direct_pptx, "xlsx": _direct_xlsx, "epub": _direct_epub,
    "pdf": _direct_pdf, "txt": _direct_txt}


def _copies(source: Path, folder: Path, count: int) -> list[Path]:
    """``count`` copies of one file (text formats get a per-copy line so no two are equal)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for number in range(count):
        target = folder / f"{number:05d}{source.suffix}"
        if source.suffix in (".md", ".rst", ".txt"):
            target.write_text(source.read_text(encoding="utf-8")
                              + f"\n\nCopy number {number} of the file.\n", encoding="utf-8")
        else:
            shutil.copyfile(source, target)
        out.append(target)
    return out


def _timed(function: Callable[[Path], Any], paths: list[Path]) -> float:
    started = time.perf_counter()
    for path in paths:
        function(path)
    return time.perf_counter() - started


def _peers(fixture: dict[str, Path], paths: dict[str, list[Path]]) -> None:
    """The alternatives weighed for the choice of libraries, where they are installed."""
    from irforge.testing.documents import BOILERPLATE

    candidates: list[tuple[str, str, Callable[[Path], str]]] = []
    try:
        from markitdown import MarkItDown

        converter = MarkItDown()

        def markitdown(path: Path) -> str:
            return converter.convert_stream(io.BytesIO(path.read_bytes()),
                                            file_extension=path.suffix).text_content

        candidates += [(fmt, "markitdown", markitdown)
                       for fmt in ("html", "docx", "pptx", "xlsx", "epub")]
    except ImportError:
        print("  (markitdown not installed: skipped)")
    try:
        from bs4 import BeautifulSoup

        candidates.append(("html", "BeautifulSoup get_text", lambda path: BeautifulSoup(
            path.read_bytes(), "lxml").get_text(" ")))
    except ImportError:
        print("  (beautifulsoup4 not installed: skipped)")

    def pymupdf_epub(path: Path) -> str:
        import pymupdf

        with pymupdf.open(str(path)) as doc:
            return " ".join(page.get_text() for page in doc)

    candidates.append(("epub", "PyMuPDF", pymupdf_epub))
    from irforge.corpus.extract import ExtractSettings, extract_data

    settings = ExtractSettings()
    print(f"\n{'format':<8} {'library':<24} {'files/s':>9} {'boilerplate kept':>17}")
    for fmt, name, function in candidates:
        seconds = _timed(function, paths[fmt])
        kept = ""
        if fmt == "html":
            text = function(fixture["html"])
            kept = f"{sum(phrase in text for phrase in BOILERPLATE)}/{len(BOILERPLATE)}"
        print(f"{fmt:<8} {name:<24} {len(paths[fmt]) / seconds:>9.0f} {kept:>17}")
    ours = extract_data("p.html", fixture["html"], settings)["text"]
    kept = f"{sum(phrase in ours for phrase in BOILERPLATE)}/{len(BOILERPLATE)}"
    print(f"{'html':<8} {'irforge (trafilatura)':<24} {'':>9} {kept:>17}")


def run(files: int, peers: bool = False, rounds: int = 3) -> None:
    from irforge.corpus.extract import ExtractSettings, extract_data
    from irforge.testing.documents import write_mixed_folder

    settings = ExtractSettings()
    root = Path(tempfile.mkdtemp(prefix="irforge-formats-"))
    try:
        written = write_mixed_folder(root / "fixture")
        fixture = {fmt: written[rel] for fmt, rel in FORMAT_FILES.items()}
        per_format = max(1, files // len(FORMAT_FILES))
        paths = {fmt: _copies(path, root / "copies" / fmt, per_format)
                 for fmt, path in fixture.items()}
        print(f"{per_format * len(paths):,} files ({per_format} per format), one process, "
              f"best of {rounds} alternating rounds\n")
        print(f"{'format':<8} {'irforge files/s':>15} {'library files/s':>15} "
              f"{'irforge/library':>15}")
        for fmt, batch in paths.items():
            for path in batch[:3]:  # warm up imports and caches on both sides
                DIRECT[fmt](path)
                extract_data(path.name, path, settings)
            direct, ours = float("inf"), float("inf")
            for _ in range(rounds):  # alternate, keep each side's best: a shared machine
                direct = min(direct, _timed(DIRECT[fmt], batch))
                ours = min(ours, _timed(lambda path: extract_data(path.name, path, settings),
                                        batch))
            print(f"{fmt:<8} {len(batch) / ours:>15.0f} {len(batch) / direct:>15.0f} "
                  f"{ours / direct:>15.2f}")
        if peers:
            _peers(fixture, paths)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--peers", action="store_true",
                        help="also time the alternative libraries (where installed)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parse(parser, None, files=12, rounds=1, peers=False)
    run(args.files, args.peers, args.rounds)


if __name__ == "__main__":
    main()
