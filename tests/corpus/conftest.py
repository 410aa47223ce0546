"""Fixtures for the corpus tests: real PDFs, a local HTTP server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pdfs
from http_fixture import PdfServer


@pytest.fixture(scope="session")
def pdf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder with every kind of PDF the extraction tests need."""
    folder = tmp_path_factory.mktemp("pdfs")
    columns = pdfs.two_column_pdf(folder / "columns.pdf")
    pdfs.table_pdf(folder / "table.pdf")
    pdfs.encrypted_pdf(folder / "encrypted.pdf")
    pdfs.truncated_pdf(folder / "truncated.pdf", columns)
    pdfs.image_only_pdf(folder / "scan.pdf")
    pdfs.text_then_image_pdf(folder / "mixed.pdf")
    (folder / "zero.pdf").write_bytes(b"")
    (folder / "garbage.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf at all\n%%EOF\n")
    pdfs.fpdf_report(folder / "report.pdf", [
        f"Storm surge maps for zone {zone} show which streets flood first. {advice}"
        for zone, advice in (("north", "Move cars to higher ground before the tide."),
                             ("south", "Sandbags are handed out at the fire station."),
                             ("east", "The ferry stops running when the barrier closes."))])
    return folder


@pytest.fixture()
def server():
    """A PDF server on 127.0.0.1 with redirects, errors, slow and non-PDF routes."""
    with PdfServer() as running:
        yield running
