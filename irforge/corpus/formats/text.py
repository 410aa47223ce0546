"""Reading text files: encoding detection and streaming under the per-document cap.

A byte-order mark picks UTF-8, UTF-16 or UTF-32; otherwise the file is read as UTF-8 and, when
it is not valid UTF-8, again as Latin-1 with a warning (Latin-1 decodes any byte, so a file
whose first 8 KiB hold a NUL byte or mostly control characters is refused as binary first).
The file is decoded a block at a time and reading stops as soon as the text passes the cap,
so a 200 MB one-line file never sits in memory whole.
"""

from __future__ import annotations

import codecs
import io
from dataclasses import dataclass
from pathlib import Path

from irforge.corpus.formats.structure import TooLarge

BLOCK = 1 << 20
SNIFF = 8192
BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"))
_CONTROL = bytes(sorted(set(range(32)) - {9, 10, 12, 13, 27}))


class NotText(Exception):
    """The bytes are not text in any encoding irforge reads (binary data)."""


@dataclass(frozen=True)
class Decoded:
    """A text file's text, the encoding it was read with and a warning (or '')."""

    text: str
    encoding: str
    warning: str = ""


def _bom_encoding(head: bytes) -> str | None:
    return next((name for bom, name in BOMS if head.startswith(bom)), None)


def _check_not_binary(head: bytes) -> None:
    if b"\x00" in head:
        raise NotText(f"binary: a NUL byte at byte {head.index(0)} (not a text file)")
    controls = len(head) - len(head.translate(None, _CONTROL))
    if head and controls / len(head) > 0.1:
        raise NotText(f"binary: {controls} control bytes in the first {len(head)} bytes "
                      "(not a text file)")


def _read(handle: io.BufferedIOBase, encoding: str, max_chars: int) -> str:
    decoder = codecs.getincrementaldecoder(encoding)()
    pieces: list[str] = []
    size = 0
    while block := handle.read(BLOCK):
        piece = decoder.decode(block)
        size += len(piece)
        if size > max_chars:
            raise TooLarge(max_chars)
        pieces.append(piece)
    pieces.append(decoder.decode(b"", final=True))
    return "".join(pieces)


def decode_file(source: Path | bytes, max_chars: int) -> Decoded:
    """The text of a file (a path, streamed, or its bytes) with the encoding found."""
    with (io.BytesIO(source) if isinstance(source, bytes | bytearray)
          else Path(source).open("rb")) as handle:
        head = handle.read(SNIFF)
        bom = _bom_encoding(head)
        if bom is None:
            _check_not_binary(head)
        handle.seek(0)
        if bom is not None:
            try:
                return Decoded(_read(handle, bom, max_chars), bom.replace("-sig", ""))
            except UnicodeDecodeError as exc:
                raise NotText(f"broken: the file starts with a {bom} byte-order mark but is "
                              f"not valid {bom} (byte {exc.start} of a block)") from exc
        try:
            return Decoded(_read(handle, "utf-8", max_chars), "utf-8")
        except UnicodeDecodeError as exc:
            where = exc.start
        handle.seek(0)
        text = _read(handle, "latin-1", max_chars)
    return Decoded(text, "latin-1", f"not valid UTF-8 (first bad byte near {where} of its "
                                    "block); read as Latin-1, check accented letters")
