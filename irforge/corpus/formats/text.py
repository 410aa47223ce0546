"""Reading text files: encoding detection and streaming under the per-document cap.

A byte-order mark picks UTF-8, UTF-16 or UTF-32; otherwise the file is read as UTF-8. A UTF-8
file cut inside its last character keeps its text (the partial character is dropped, with a
warning). Any other file that is not valid UTF-8 gets its encoding detected, per file, by
charset-normalizer (Windows-1252, Shift-JIS, KOI8-R, ...), read with it and a warning naming it
(Latin-1 only when nothing fits); a file whose first 8 KiB hold a NUL byte or mostly control
characters is refused as binary first.
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


DETECT = 1 << 20  # bytes charset-normalizer looks at


class CutAtEnd(Exception):
    """Valid UTF-8 up to a last character that the end of the file cuts short."""

    def __init__(self, text: str, cut: int) -> None:
        super().__init__(f"{cut} byte(s) of a cut character at the end")
        self.text = text
        self.cut = cut


def _read(handle: io.BufferedIOBase, encoding: str, max_chars: int,
          errors: str = "strict") -> str:
    decoder = codecs.getincrementaldecoder(encoding)(errors)
    pieces: list[str] = []
    size = 0
    while block := handle.read(BLOCK):
        piece = decoder.decode(block)
        size += len(piece)
        if size > max_chars:
            raise TooLarge(max_chars)
        pieces.append(piece)
    pending = decoder.getstate()[0]
    try:
        pieces.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        if encoding != "utf-8" or not _starts_a_character(pending):
            raise
        raise CutAtEnd("".join(pieces), len(pending)) from None
    return "".join(pieces)


def _starts_a_character(pending: bytes) -> bool:
    """Whether ``pending`` is the valid beginning of one multibyte UTF-8 character."""
    if not pending or pending[0] < 0xC2 or pending[0] > 0xF4:
        return False
    need = 2 if pending[0] < 0xE0 else 3 if pending[0] < 0xF0 else 4
    return len(pending) < need and all(0x80 <= byte < 0xC0 for byte in pending[1:])


#: the commonest legacy encoding, chosen when it ties with the best guess (a short French
#: text fits Windows-1250 and -1252 equally well; 1252 is far more often right)
TIE_WINNER = "cp1252"


def _detected(handle: io.BufferedIOBase) -> str | None:
    """The encoding charset-normalizer finds for the file's first MiB (None: nothing fits)."""
    from charset_normalizer import from_bytes

    matches = from_bytes(handle.read(DETECT))
    best = matches.best()
    if best is None:
        return None
    tied = any(match.encoding == TIE_WINNER and match.chaos <= best.chaos
               and match.coherence >= best.coherence for match in matches)
    return TIE_WINNER if tied else best.encoding


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
        except CutAtEnd as cut:
            return Decoded(cut.text, "utf-8", f"the file ends inside a UTF-8 character (its "
                           f"last {cut.cut} byte(s)); that partial character was dropped")
        except UnicodeDecodeError as exc:
            where = exc.start
        handle.seek(0)
        encoding = _detected(handle) or "latin-1"
        handle.seek(0)
        text = _read(handle, encoding, max_chars, errors="replace")
    name = codecs.lookup(encoding).name.replace("iso8859-1", "latin-1")
    shown = "Latin-1 (no encoding fits it better)" if name == "latin-1" else name
    return Decoded(text, name, f"not valid UTF-8 (first bad byte near {where} of its block); "
                               f"read as {shown}, detected per file; check accented letters")
