"""Zip-based formats (Word, PowerPoint, Excel, EPUB) are checked before any parser opens them:
a zip bomb is skipped as too-large, a file that is no zip as broken."""

from __future__ import annotations

import io
import zipfile

import pytest

from irforge.corpus.extract import ExtractSettings, extract_data


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".xlsx", ".epub"])
def test_an_archive_unpacking_past_the_limit_is_skipped_unopened(suffix: str) -> None:
    bomb = _zip({"word/document.xml": b"<w>" + b" " * 2_000_000 + b"</w>"})
    assert len(bomb) < 10_000  # small on disk, 2 MB unpacked
    row = extract_data(f"bomb{suffix}", bomb, ExtractSettings(max_chars=100_000))
    assert row["status"] == "skipped"
    assert row["reason"].startswith("too-large: more than 800,000 bytes unpacked")


@pytest.mark.parametrize(("suffix", "kind"), [(".docx", "Word"), (".epub", "EPUB")])
def test_a_file_that_is_no_zip_is_broken(suffix: str, kind: str) -> None:
    row = extract_data(f"fake{suffix}", b"just some text, not a zip archive",
                       ExtractSettings())
    assert row["reason"] == f"broken: not a valid {kind} ({suffix}) file (it is not a zip " \
                            "archive)"


def test_a_damaged_but_small_archive_is_broken_with_the_library_error() -> None:
    row = extract_data("empty.docx", _zip({"hello.txt": b"hi"}), ExtractSettings())
    assert row["status"] == "skipped" and row["reason"].startswith("broken: the docx reader")


def _understated(data: bytes, declared: int) -> bytes:
    """A one-entry zip whose headers say the entry unpacks to ``declared`` bytes."""
    raw = bytearray(_zip({"word/document.xml": data}))
    local, central = raw.find(b"PK\x03\x04"), raw.find(b"PK\x01\x02")
    raw[local + 22:local + 26] = declared.to_bytes(4, "little")
    raw[central + 24:central + 28] = declared.to_bytes(4, "little")
    return bytes(raw)


def test_an_entry_that_understates_its_size_is_measured_while_inflating() -> None:
    """Issue 37: an entry declaring 5,000 bytes and holding 60 MB passed the declared-size
    check, then the parser inflated it whole; now it is inflated 64 KiB at a time and
    refused, with memory far below what it holds."""
    import tracemalloc

    lying = _understated(b"<w>" + b" " * 60_000_000 + b"</w>", 5_000)
    assert len(lying) < 200_000
    tracemalloc.start()
    try:
        row = extract_data("lying.docx", lying, ExtractSettings(max_chars=100_000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert row["status"] == "skipped"
    assert row["reason"].startswith("broken: 'word/document.xml' in this Word (.docx) file "
                                     "does not inflate to what it declares")
    assert peak < 8_000_000, peak

