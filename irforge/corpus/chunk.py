"""Stage 4, chunk: documents -> passages on sentence boundaries, never over the token maximum.

DisastIR (Appendix A step 4) cuts cleaned documents into semantically coherent chunks of fewer
than 256 tokens. Here sentences are packed greedily into chunks; a sentence longer than the
maximum is cut between words (and a word longer than the maximum between characters); every
chunk's final text is counted again with the real tokenizer and split if it is over, so the
maximum holds for any tokenizer. A paragraph break ends a chunk that already holds
``paragraph_tokens`` (default half the maximum), so paragraphs stay whole where they can. With
``semantic=True`` a chunk also ends where the embedding
distance between neighbouring sentences is in the top percentile of the document (a
breakpoint), provided the chunk already has ``min_tokens``. Chunks shorter than ``min_tokens``
are merged into a neighbour when the result fits, and dropped (and counted) otherwise.
"""

from __future__ import annotations

import bisect
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from irforge.corpus.sentences import iter_sentence_spans
from irforge.corpus.tokenizers import Tokenizer

_WORD_SPAN = re.compile(r"\S+")
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
T = TypeVar("T")


@dataclass(frozen=True)
class ChunkSettings:
    """Chunk size limits, the tokenizer that counts them, and optional embedding breakpoints."""

    max_tokens: int = 256
    min_tokens: int = 16
    tokenizer: str = "minilm"
    semantic: bool = False
    breakpoint_percentile: float = 95.0
    embedder: str = "minilm"
    paragraph_tokens: int | None = None

    @property
    def paragraph_break_at(self) -> int:
        """A paragraph break ends a chunk that already has this many tokens (default: half max)."""
        return self.max_tokens // 2 if self.paragraph_tokens is None else self.paragraph_tokens

    def __post_init__(self) -> None:
        if self.max_tokens < 8:
            raise ValueError(f"max_tokens must be at least 8, got {self.max_tokens}")
        if not 0 <= self.min_tokens <= self.max_tokens:
            raise ValueError(f"min_tokens must be in [0, max_tokens], got {self.min_tokens}")


@dataclass(frozen=True, slots=True)
class Piece:
    """A span of the document text with its token count (of the whitespace-normalized text)."""

    start: int
    end: int
    tokens: int


def normalized(text: str) -> str:
    return " ".join(text.split())


COUNT_BATCH = 1024  # spans tokenized at once: bounds the tokenizer's memory on huge documents
MAX_CHARS_PER_TOKEN = 64  # no tokenizer makes one token of more characters than this


class _Counter:
    """Counts tokens of document spans, always on whitespace-normalized text, in batches."""

    def __init__(self, text: str, tokenizer: Tokenizer) -> None:
        self.text, self.tokenizer = text, tokenizer

    def pieces(self, spans: Iterable[tuple[int, int]]) -> list[Piece]:
        out: list[Piece] = []
        for batch in _batches(spans, COUNT_BATCH):
            counts = self.tokenizer.count_many([normalized(self.text[s:e]) for s, e in batch])
            out += [Piece(s, e, c) for (s, e), c in zip(batch, counts, strict=True)]
        return out

    def piece(self, start: int, end: int) -> Piece:
        return self.pieces([(start, end)])[0]


def _batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _split_word(counter: _Counter, start: int, end: int, max_tokens: int) -> list[Piece]:
    """Cut one over-long word at the longest prefixes that fit (binary search in a window
    no piece can exceed, so a megabyte 'word' costs no more than a short one)."""
    out = []
    while start < end:
        low, high = start + 1, min(end, start + max_tokens * MAX_CHARS_PER_TOKEN)
        while low < high:
            middle = (low + high + 1) // 2
            if counter.piece(start, middle).tokens <= max_tokens:
                low = middle
            else:
                high = middle - 1
        out.append(counter.piece(start, low))
        start = low
    return out


def _fit(counter: _Counter, units: Sequence[Piece], max_tokens: int) -> list[Piece]:
    """Pack units greedily by their counts; re-count each pack and halve any that is over."""
    packs: list[list[Piece]] = []
    total = 0
    for unit in units:
        if packs and total + unit.tokens <= max_tokens:
            packs[-1].append(unit)
            total += unit.tokens
        else:
            packs.append([unit])
            total = unit.tokens
    return _verified(counter, packs, max_tokens)


def _verified(counter: _Counter, packs: list[list[Piece]], max_tokens: int) -> list[Piece]:
    merged = counter.pieces([(pack[0].start, pack[-1].end) for pack in packs])
    out: list[Piece] = []
    for pack, piece in zip(packs, merged, strict=True):
        if piece.tokens <= max_tokens or len(pack) == 1:
            out.append(piece)
        else:
            half = len(pack) // 2
            out += _verified(counter, [pack[:half], pack[half:]], max_tokens)
    return out


def _sentence_units(counter: _Counter, max_tokens: int) -> list[Piece]:
    """Sentences that fit, and over-long sentences cut into pieces that fit.

    Sentences are counted a batch at a time; an over-long sentence (a whole one-line file,
    say) is cut a window of words at a time, so memory stays near the size of the text."""
    units: list[Piece] = []
    for batch in _batches(iter_sentence_spans(counter.text), COUNT_BATCH):
        for sentence in counter.pieces(batch):
            if sentence.tokens <= max_tokens:
                units.append(sentence)
            else:
                units += _long_sentence_units(counter, sentence, max_tokens)
    return units


def _long_sentence_units(counter: _Counter, sentence: Piece, max_tokens: int) -> list[Piece]:
    """Pieces that fit, cut between words of one over-long sentence, a window at a time."""
    units: list[Piece] = []
    carry: list[Piece] = []  # the last, still open pack of the previous window
    spans = (m.span() for m in _WORD_SPAN.finditer(counter.text, sentence.start, sentence.end))
    for window in _batches(spans, 8 * COUNT_BATCH):
        fitting = list(carry)
        for word in counter.pieces(window):
            fitting += ([word] if word.tokens <= max_tokens
                        else _split_word(counter, word.start, word.end, max_tokens))
        packed = _fit(counter, fitting, max_tokens)
        units += packed[:-1]
        last = packed[-1]
        carry = [piece for piece in fitting if piece.start >= last.start]
    if carry:
        units += _fit(counter, carry, max_tokens)
    return units


def breakpoints_from_embeddings(embeddings: np.ndarray, percentile: float) -> set[int]:
    """Indices i where a chunk should start: cosine distance to unit i-1 above the percentile."""
    if len(embeddings) < 3:
        return set()
    unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-12)
    distances = 1.0 - np.sum(unit[1:] * unit[:-1], axis=1)
    cut = np.percentile(distances, percentile)
    return {i + 1 for i, d in enumerate(distances) if d > cut}


def paragraph_starts(text: str, units: Sequence[Piece]) -> set[int]:
    """Indices of units that begin a paragraph (a blank line before them)."""
    return {index for index in range(1, len(units))
            if _BLANK_LINE.search(text, units[index - 1].end, units[index].start)}


def heading_starts(units: Sequence[Piece], headings: Iterable[tuple[int, int]]) -> set[int]:
    """Indices of the first units after each heading span ``(start, end)``."""
    starts = [unit.start for unit in units]
    found = {bisect.bisect_left(starts, end) for _start, end in headings}
    return {index for index in found if 0 < index < len(units)}


def outside(units: Sequence[Piece], spans: Sequence[tuple[int, int]]) -> list[Piece]:
    """The units that lie in none of ``spans`` (headings are not body text)."""
    if not spans:
        return list(units)
    starts = [start for start, _end in spans]
    out = []
    for unit in units:
        index = bisect.bisect_right(starts, unit.start) - 1
        if index < 0 or unit.end > spans[index][1]:
            out.append(unit)
    return out


def body_text(text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> str:
    """``text[start:end]`` whitespace-normalized, with the parts inside ``spans`` (headings)
    left out: a heading lives in the passage's section path, never glued to its first
    sentence."""
    pieces, cursor = [], start
    for span_start, span_end in spans:
        if span_end <= cursor or span_start >= end:
            continue
        pieces.append(text[cursor:max(cursor, span_start)])
        cursor = max(cursor, span_end)
    pieces.append(text[cursor:end])
    return normalized(" ".join(pieces))


def _pack(units: Sequence[Piece], settings: ChunkSettings, breaks: set[int],
          paragraphs: set[int], headings: set[int] = frozenset()) -> list[list[Piece]]:
    packs: list[list[Piece]] = []
    total = 0
    for index, unit in enumerate(units):
        boundary = (((index in breaks or index in headings) and total >= settings.min_tokens)
                    or (index in paragraphs and total >= settings.paragraph_break_at))
        if packs and (total + unit.tokens > settings.max_tokens or boundary):
            packs.append([])
            total = 0
        if not packs:
            packs.append([])
        packs[-1].append(unit)
        total += unit.tokens
    return packs


def _merge_short(counter: _Counter, chunks: list[Piece], settings: ChunkSettings
                 ) -> tuple[list[Piece], int]:
    """Merge chunks under the minimum into a neighbour when that fits; drop the rest."""
    out: list[Piece] = []
    dropped = 0
    pending = deque(chunks)
    while pending:
        chunk = pending.popleft()
        if chunk.tokens >= settings.min_tokens:
            out.append(chunk)
            continue
        if out:
            merged = counter.piece(out[-1].start, chunk.end)
            if merged.tokens <= settings.max_tokens:
                out[-1] = merged
                continue
        if pending:
            merged = counter.piece(chunk.start, pending[0].end)
            if merged.tokens <= settings.max_tokens:
                pending[0] = merged
                continue
        dropped += 1
    return out, dropped


def chunk_text(text: str, tokenizer: Tokenizer, settings: ChunkSettings,
               embed: Callable[[list[str]], np.ndarray] | None = None,
               headings: Sequence[tuple[int, int]] = ()) -> tuple[list[Piece], int]:
    """Chunks of ``text`` (spans + token counts) and how many short fragments were dropped.
    ``headings`` are the sorted character spans of section headings: they are not body text
    (no chunk starts or ends with one), and a chunk holding ``min_tokens`` ends before each."""
    counter = _Counter(text, tokenizer)
    units = outside(_sentence_units(counter, settings.max_tokens), headings)
    if not units:
        return [], 0
    breaks: set[int] = set()
    if settings.semantic and embed is not None:
        vectors = embed([normalized(text[u.start:u.end]) for u in units])
        breaks = breakpoints_from_embeddings(vectors, settings.breakpoint_percentile)
    packs = _pack(units, settings, breaks, paragraph_starts(text, units),
                  heading_starts(units, headings))
    chunks = _verified(counter, packs, settings.max_tokens)
    return _merge_short(counter, chunks, settings)


def page_of(pages: Sequence[Sequence[int]], offset: int) -> tuple[int, int]:
    """(page number, offset inside that page) of a document offset, from extract's page spans."""
    starts = [span[1] for span in pages]
    index = max(0, bisect.bisect_right(starts, offset) - 1)
    return int(pages[index][0]), offset - int(pages[index][1])
