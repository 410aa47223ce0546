"""Awkward input files: same stems, spaces in names, a BOM, one huge line, HTML named .pdf."""

from __future__ import annotations

from pathlib import Path

import pdfs
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.corpus.chunk import ChunkSettings, chunk_text, normalized
from irforge.corpus.extract import ExtractSettings, extract_txt
from irforge.corpus.formats.pdf import extract_pdf
from irforge.corpus.tokenizers import get_tokenizer

BODY = "The {zone} district opens its flood shelter when the river passes four metres. "


def test_same_stem_and_spaces_give_unique_clean_ids_through_the_build(tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    pdfs.fpdf_report(source / "a.pdf", [BODY.format(zone="north") * 6])
    (source / "a.txt").write_text("Plan A\n\n" + BODY.format(zone="south") * 6, encoding="utf-8")
    (source / "my notes.txt").write_text("Notes\n\n" + BODY.format(zone="east") * 6,
                                         encoding="utf-8")
    out = tmp_path / "bench"
    result = CliRunner().invoke(build_app(), [
        "corpus", "build", str(out), "--input", str(source), "--tokenizer", "words",
        "--max-tokens", "40", "--min-tokens", "4", "--skip-passage-dedup", "--workers", "1"])
    assert result.exit_code == 0, result.output
    docs = list(Benchmark(out).corpus())
    sources = {doc.metadata["doc_id"] for doc in docs}
    assert {"a.pdf", "a.txt"} <= sources and len(sources) == 3
    assert all(not any(ch.isspace() for ch in doc.doc_id) for doc in docs)
    assert len({doc.doc_id for doc in docs}) == len(docs)
    again = extract_txt(source / "my notes.txt", ExtractSettings())["doc_id"]
    assert again == next(s for s in sources if s.startswith("my_notes.txt-"))  # stable


def test_bom_one_line_and_html_named_pdf(tmp_path: Path) -> None:
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffFlood plan\n\nThe shelter opens at noon today.".encode())
    row = extract_txt(bom, ExtractSettings())
    assert row["title"] == "Flood plan" and row["text"].startswith("The shelter")

    line = tmp_path / "line.txt"
    line.write_text("word " * 60_000 + "end", encoding="utf-8")  # one line, no sentence end
    row = extract_txt(line, ExtractSettings())
    assert row["status"] == "ok" and row["title"] == ""
    tokenizer = get_tokenizer("words")
    chunks, _ = chunk_text(row["text"], tokenizer, ChunkSettings(max_tokens=64, min_tokens=0))
    assert all(chunk.tokens <= 64 for chunk in chunks)
    assert " ".join(normalized(row["text"][c.start:c.end]) for c in chunks) == row["text"]
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)

    html = tmp_path / "report.pdf"
    html.write_text("<!DOCTYPE html><html><body>Not found</body></html>\n%%EOF\n")
    assert extract_pdf(html, ExtractSettings())["reason"].startswith("not a PDF: the file is "
                                                                     "an HTML page")
