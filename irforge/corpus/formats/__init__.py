"""Which reader handles which file: one registry from file suffix to format and reader.

Readers are named as ``module:function`` and imported on first use, so a format's library is
loaded only when a file of that format is read. Existing corpora (JSONL, Parquet, a Hugging
Face dataset folder) are not in this table: they hold many documents each and are streamed
by :mod:`irforge.corpus.formats.corpora`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

Reader = Callable[[str, Any, Any], dict[str, Any]]


@dataclass(frozen=True)
class Format:
    """A document format: its name in provenance and the ``module:function`` that reads it."""

    name: str
    reader: str

    def load(self) -> Reader:
        return _load(self.reader)


@cache
def _load(reader: str) -> Reader:
    module, _, function = reader.partition(":")
    return getattr(importlib.import_module(module), function)


_DOCUMENTS = "irforge.corpus.formats.documents"
FORMATS: dict[str, Format] = {
    ".pdf": Format("pdf", "irforge.corpus.formats.pdf:extract_pdf_data"),
    ".txt": Format("txt", "irforge.corpus.extract:extract_txt_data"),
    ".text": Format("txt", "irforge.corpus.extract:extract_txt_data"),
    ".md": Format("markdown", f"{_DOCUMENTS}:read_markdown"),
    ".markdown": Format("markdown", f"{_DOCUMENTS}:read_markdown"),
    ".rst": Format("rst", f"{_DOCUMENTS}:read_rst"),
    ".html": Format("html", f"{_DOCUMENTS}:read_html"),
    ".htm": Format("html", f"{_DOCUMENTS}:read_html"),
    ".docx": Format("docx", f"{_DOCUMENTS}:read_docx"),
    ".pptx": Format("pptx", f"{_DOCUMENTS}:read_pptx"),
    ".xlsx": Format("xlsx", f"{_DOCUMENTS}:read_xlsx"),
    ".epub": Format("epub", f"{_DOCUMENTS}:read_epub"),
}
CORPUS_FORMATS = {".jsonl": "jsonl-corpus", ".parquet": "parquet-corpus"}
HF_DATASET = "hf-dataset"


def format_of(name: str) -> Format | None:
    """The document format of a file name (by suffix, any case), or None."""
    return FORMATS.get(os.path.splitext(name)[1].lower())


def supported_suffixes() -> list[str]:
    return sorted({*FORMATS, *CORPUS_FORMATS})
