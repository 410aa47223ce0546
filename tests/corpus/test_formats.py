"""Issue 26: a folder of the files people have (nested; Markdown, reST, HTML with navigation
and adverts, Word, PowerPoint, Excel, EPUB, PDF, text in three encodings, a BEIR corpus)
goes through ``corpus build``; every file's passages, their provenance, and no boilerplate."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.corpus.chunk import body_text
from irforge.corpus.chunk_stage import heading_spans
from irforge.testing.documents import BOILERPLATE, write_mixed_folder

BUILD = ["--tokenizer", "words", "--max-tokens", "64", "--min-tokens", "4",
         "--skip-passage-dedup", "--workers", "1"]
FORMATS = {"notes/plan.md": "markdown", "notes/handbook.rst": "rst", "web/heatwave.html": "html",
           "reports/2026/briefing.docx": "docx", "reports/routes.pptx": "pptx",
           "reports/stock.xlsx": "xlsx", "books/storm guide.epub": "epub",
           "reports/drought.pdf": "pdf", "text/landslide.txt": "txt", "text/cafe.txt": "txt",
           "text/storm-utf16.txt": "txt", "existing/corpus.jsonl": "jsonl-corpus"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("mixed")
    source = root / "documents"
    write_mixed_folder(source)
    out = root / "bench"
    result = CliRunner().invoke(build_app(), ["corpus", "build", str(out), "--input",
                                              str(source), *BUILD])
    assert result.exit_code == 0, result.output
    docs = list(Benchmark(out).corpus())
    extracted = [json.loads(line) for line in
                 (out / "corpus_work/extract/documents.jsonl").read_text().splitlines()]
    return {"docs": docs, "rows": extracted, "output": result.output, "out": out,
            "source": source}


def _of(built: dict, rel: str) -> list:
    return [doc for doc in built["docs"] if doc.metadata["file"] == rel]


def test_every_file_of_every_format_gives_passages_with_its_format(built: dict) -> None:
    for rel, fmt in FORMATS.items():
        passages = _of(built, rel)
        assert passages, f"{rel}: no passage"
        assert {doc.metadata["format"] for doc in passages} == {fmt}, rel
    assert {doc.metadata["file"] for doc in built["docs"]} == set(FORMATS)


def test_character_spans_point_into_the_extracted_text(built: dict) -> None:
    """The span is the passage's text, less the section headings inside it (a heading is
    the passage's section path, not body text)."""
    rows = {row["doc_id"]: row for row in built["rows"] if row["status"] == "ok"}
    for doc in built["docs"]:
        meta = doc.metadata
        row = rows[meta["doc_id"]]
        headings = heading_spans(row["text"], row.get("sections") or [])
        assert body_text(row["text"], meta["char_start"], meta["char_end"], headings) \
            == doc.text, doc.doc_id


def test_sections_slides_sheets_and_chapters_are_the_provenance(built: dict) -> None:
    plan = {doc.metadata["section"]: doc.text for doc in _of(built, "notes/plan.md")}
    assert "Orchard Lane" in plan["Flood plan for Millbrook > Shelters"]
    # the heading is the section path, not glued to the first sentence ("Supplies Each ...")
    assert plan["Flood plan for Millbrook > Supplies"].startswith("Each shelter")
    assert "author: county office" not in " ".join(plan.values())  # front matter dropped
    assert all(doc.metadata.get("page") is None for doc in _of(built, "notes/plan.md"))
    rst = {doc.metadata["section"]: doc.text for doc in _of(built, "notes/handbook.rst")}
    assert "call sign" in rst["Volunteer handbook > Radio rules"]
    slides = {doc.metadata["page"]: doc for doc in _of(built, "reports/routes.pptx")}
    assert slides[2].metadata["page_unit"] == "slide"
    assert slides[2].metadata["section"] == "Assembly points"
    assert "rugby club car park" in slides[2].text and "ring road" in slides[1].text
    sheets = {doc.metadata["section"]: doc for doc in _of(built, "reports/stock.xlsx")}
    assert sheets["Contacts"].metadata["page"] == 2
    assert "Harrow depot | 1200 | 4" in sheets["Stock"].text
    chapters = {doc.metadata["page"]: doc for doc in _of(built, "books/storm guide.epub")}
    assert set(chapters) == {1, 2}  # the table of contents is not a chapter
    assert chapters[2].metadata["section"] == "After the storm"
    assert "photograph damage" in chapters[2].text
    briefing = _of(built, "reports/2026/briefing.docx")
    assert briefing[0].title == "Ravensworth briefing"
    assert "Mill bridge | closed" in " ".join(doc.text for doc in briefing)
    pdf = _of(built, "reports/drought.pdf")
    assert pdf[0].metadata["page"] == 1 and pdf[-1].metadata["page_end"] == 2
    assert pdf[0].title == "Fenmoor drought order"


def test_html_boilerplate_is_not_in_the_corpus(built: dict) -> None:
    page = " ".join(doc.text for doc in _of(built, "web/heatwave.html"))
    assert "cooling centres" in page and "check on elderly neighbours" in page
    everything = " ".join(f"{doc.title} {doc.text}" for doc in built["docs"])
    for phrase in BOILERPLATE:
        assert phrase not in everything, phrase


def test_text_in_three_encodings_and_the_beir_ids(built: dict) -> None:
    cafe = _of(built, "text/cafe.txt")
    assert "Café du Pont" in cafe[0].text and "évacuation" in cafe[0].text
    row = next(r for r in built["rows"] if r["file"] == "text/cafe.txt")
    assert row["encoding"] == "cp1252" and "read as cp1252, detected per file" in row["warnings"][0]
    storm = next(r for r in built["rows"] if r["file"] == "text/storm-utf16.txt")
    assert storm["encoding"] == "utf-16" and "Pellow Bay" in storm["text"]
    beir = {doc.doc_id: doc for doc in _of(built, "existing/corpus.jsonl")}
    assert set(beir) == {"beir-001", "beir-002"}  # the corpus's own ids are kept
    assert beir["beir-002"].title == "Ash fall" and "Hollin valley" in beir["beir-002"].text


def test_files_not_read_have_their_reason_in_the_log_and_on_the_console(built: dict) -> None:
    reasons = {row["file"]: row["reason"] for row in built["rows"]
               if row["status"] == "skipped"}
    assert reasons[".drafts/"].startswith("hidden:")
    assert reasons["misc/photos.zip"].startswith("unsupported: .zip files are not read")
    assert "Not for the corpus" not in " ".join(doc.text for doc in built["docs"])
    assert "misc/photos.zip" in built["output"] and "hidden:" in built["output"]


def test_rebuild_resumes_without_reading_any_file_again(built: dict) -> None:
    result = CliRunner().invoke(build_app(), ["corpus", "build", str(built["out"]), "--input",
                                              str(built["source"]), *BUILD])
    assert result.exit_code == 0, result.output
    assert '"newly_extracted": 0' in result.output
    assert len(list(Benchmark(built["out"]).corpus())) == len(built["docs"])


def test_html_nested_hundreds_of_levels_keeps_its_text() -> None:
    """Issue 37: a page nested 300 levels deep was skipped as 'empty: no main content'
    (libxml2's default depth limit, 256); the raised limit is still bounded (2,048)."""
    from irforge.corpus.extract import ExtractSettings, extract_data

    body = ("<p>The river gauge at the old mill is read every hour during a flood watch, and "
            "the volunteers open the sandbag store beside the chapel.</p>") * 3
    for depth in (300, 1500):
        page = (f"<html><head><title>Deep page</title></head><body>{'<div>' * depth}{body}"
                f"{'</div>' * depth}</body></html>")
        row = extract_data("deep.html", page.encode(), ExtractSettings())
        assert row["status"] == "ok", (depth, row.get("reason"))
        assert row["title"] == "Deep page" and "sandbag store" in row["text"]
