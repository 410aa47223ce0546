"""Text files: UTF-8, UTF-16/32 with a BOM, other encodings detected per file with a warning,
a cut last character repaired, binary refused, and the per-document cap applied while
streaming."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.corpus.formats.structure import Part, TooLarge, assemble, section_at
from irforge.corpus.formats.text import BLOCK, NotText, decode_file

TEXT = "Évacuation du quartier : la crue dépasse la digue près du café."


@pytest.mark.parametrize(("encoding", "name"), [("utf-8", "utf-8"), ("utf-8-sig", "utf-8"),
                                                ("utf-16", "utf-16"), ("utf-32", "utf-32")])
def test_unicode_encodings_are_read_exactly(encoding: str, name: str) -> None:
    decoded = decode_file(TEXT.encode(encoding), 10_000)
    assert (decoded.text, decoded.encoding, decoded.warning) == (TEXT, name, "")


def test_a_western_european_file_is_read_exactly_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes(TEXT.encode("latin-1"))
    decoded = decode_file(path, 10_000)
    assert decoded.text == TEXT and decoded.encoding in ("latin-1", "cp1252")
    assert "not valid UTF-8" in decoded.warning and "detected per file" in decoded.warning


RUSSIAN = ("Эвакуация района начинается, когда вода поднимается выше дамбы. Жители получают "
           "предупреждение по радио и собираются у школы на холме, где их ждут автобусы.")


@pytest.mark.parametrize("encoding", ["cp1251", "koi8-r"])
def test_the_encoding_is_detected_per_file_not_assumed_latin1(encoding: str) -> None:
    """Issue 37: every non-UTF-8 file was Latin-1; a Cyrillic one became mojibake."""
    decoded = decode_file(RUSSIAN.encode(encoding), 10_000)
    assert decoded.text == RUSSIAN, decoded.encoding
    assert decoded.encoding != "latin-1" and decoded.encoding in decoded.warning


def test_utf8_cut_inside_its_last_character_keeps_its_text() -> None:
    """Issue 37: a cut final character turned the whole file into Latin-1 ('Ã¶ffnet')."""
    text = "Die Tür öffnet sich um acht Uhr. Größe: ö"
    decoded = decode_file(text.encode("utf-8")[:-1], 10_000)
    assert decoded.text == text[:-1] and decoded.encoding == "utf-8"
    assert "ends inside a UTF-8 character" in decoded.warning
    three = "Preis 5 €".encode()[:-2]  # two of the euro sign's three bytes cut
    assert decode_file(three, 10_000).text == "Preis 5 "


def test_invalid_utf8_in_the_middle_is_not_taken_for_a_cut_end() -> None:
    decoded = decode_file("Größe ".encode() + b"\xff\xfe middle " + "ö".encode()[:1],
                          10_000)
    assert decoded.encoding != "utf-8" and "not valid UTF-8" in decoded.warning


def test_binary_data_is_refused_not_decoded_as_latin1() -> None:
    with pytest.raises(NotText, match="binary: a NUL byte at byte 3"):
        decode_file(b"abc\x00def" * 10, 10_000)
    with pytest.raises(NotText, match="control bytes"):
        decode_file(bytes(range(1, 9)) * 100, 10_000)


def test_the_cap_stops_reading_after_the_block_that_passes_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    path.write_bytes(b"a" * (20 * BLOCK))
    with pytest.raises(TooLarge, match="more than 1,000,000 characters"):
        decode_file(path, 1_000_000)
    assert len(decode_file(path, 20 * BLOCK).text) == 20 * BLOCK


def test_assemble_records_sections_and_units_as_spans() -> None:
    built = assemble([Part("", unit=1), Part("Plan", level=1), Part("Body one."),
                      Part("Shelters", level=2), Part("Body  two\nwraps."),
                      Part("", unit=2), Part("Other", level=1), Part("Body three.")], 1000)
    assert built.text == ("Plan\n\nBody one.\n\nShelters\n\nBody two wraps.\n\nOther\n\n"
                          "Body three.")
    assert [label for label, _, _ in built.sections] == ["Plan", "Plan > Shelters", "Other"]
    for label, start, end in built.sections:
        assert built.text[start:end].startswith(label.split(" > ")[-1])
    assert [unit for unit, _, _ in built.pages] == [1, 2]
    assert built.text[built.pages[1][1]:].startswith("Other")
    assert section_at(built.sections, built.text.index("wraps")) == "Plan > Shelters"
    with pytest.raises(TooLarge):
        assemble([Part("x" * 600), Part("y" * 600)], 1000)
