"""Page layout rules for extraction, as pure functions over text lines with bounding boxes.

Reading order: the page is cut into horizontal bands at full-width blocks; inside a band,
blocks whose x-ranges overlap form a column; columns are read left to right, each top to
bottom. Running headers and footers are margin lines that repeat (digits ignored) on many
pages; lone page numbers in a margin are dropped everywhere.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

Rect = tuple[float, float, float, float]

_PAGE_NUMBER = re.compile(r"^(page\s*)?[-–]?\s*\d{1,4}\s*[-–]?(\s*(of|/)\s*\d{1,4})?$", re.I)
_HYPHEN_BREAK = re.compile(r"(\w)-\n(?=[a-z])")


@dataclass(frozen=True)
class Line:
    bbox: Rect
    text: str


@dataclass(frozen=True)
class Block:
    bbox: Rect
    lines: tuple[Line, ...]

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]


def centre_inside(bbox: Rect, areas: Sequence[Rect]) -> bool:
    """True when the centre of ``bbox`` lies in one of ``areas`` (used for table regions)."""
    cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
    return any(a[0] <= cx <= a[2] and a[1] <= cy <= a[3] for a in areas)


def margin_key(text: str) -> str:
    """A margin line with digits and spacing normalized, so 'Page 3' and 'Page 4' match."""
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text)).strip().lower()


def in_margin(bbox: Rect, page_height: float, margin: float) -> bool:
    return bbox[3] <= page_height * margin or bbox[1] >= page_height * (1 - margin)


def edge_lines(blocks: Sequence[Block], height: float, margin: float, per_edge: int = 3
               ) -> list[Line]:
    """The few top-most and bottom-most lines of a page that lie in its margins."""
    lines = sorted((line for block in blocks for line in block.lines if line.text.strip()),
                   key=lambda line: line.bbox[1])
    edges = lines[:per_edge] + lines[-per_edge:] if len(lines) > 2 * per_edge else lines
    return [line for line in edges if in_margin(line.bbox, height, margin)]


def repeated_margin_keys(pages: Sequence[Sequence[Block]], heights: Sequence[float],
                         margin: float = 0.1, min_share: float = 0.5) -> set[str]:
    """Edge line keys that occur on at least ``min_share`` of the pages (and on two or more)."""
    counts: Counter[str] = Counter()
    for blocks, height in zip(pages, heights, strict=True):
        counts.update({margin_key(line.text) for line in edge_lines(blocks, height, margin)})
    needed = max(2, math.ceil(min_share * len(pages)))
    return {key for key, count in counts.items() if count >= needed}


def drop_lines(blocks: Sequence[Block], height: float, repeated: set[str], tables: Sequence[Rect],
               margin: float = 0.1) -> tuple[list[Block], Counter[str]]:
    """Blocks without table lines, repeated headers/footers and margin page numbers."""
    removed: Counter[str] = Counter()
    kept_blocks = []
    for block in blocks:
        kept = []
        for line in block.lines:
            text = line.text.strip()
            if not text:
                continue
            if tables and centre_inside(line.bbox, tables):
                removed["table_lines"] += 1
            elif in_margin(line.bbox, height, margin) and (
                    margin_key(text) in repeated or _PAGE_NUMBER.match(text)):
                removed["header_footer_lines"] += 1
            else:
                kept.append(line)
        if kept:
            kept_blocks.append(Block(_union(line.bbox for line in kept), tuple(kept)))
    return kept_blocks, removed


def _union(boxes) -> Rect:
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def reading_order(blocks: Sequence[Block], full_width_share: float = 0.6) -> list[Block]:
    """Blocks in reading order, handling multi-column bands between full-width blocks."""
    if not blocks:
        return []
    left = min(b.bbox[0] for b in blocks)
    right = max(b.bbox[2] for b in blocks)
    full = max(right - left, 1e-6) * full_width_share
    ordered: list[Block] = []
    band: list[Block] = []
    for block in sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0])):
        if block.width >= full:
            ordered += _columns(band)
            band = []
            ordered.append(block)
        else:
            band.append(block)
    return ordered + _columns(band)


def _columns(band: Sequence[Block]) -> list[Block]:
    """Group a band's blocks into columns by overlapping x-ranges; read columns left to right."""
    columns: list[list[Block]] = []
    extent: list[float] = []
    for block in sorted(band, key=lambda b: b.bbox[0]):
        if columns and block.bbox[0] < extent[-1]:
            columns[-1].append(block)
            extent[-1] = max(extent[-1], block.bbox[2])
        else:
            columns.append([block])
            extent.append(block.bbox[2])
    return [block for column in columns for block in sorted(column, key=lambda b: b.bbox[1])]


def merge_paragraph_lines(blocks: Sequence[Block], gap_share: float = 0.6) -> list[Block]:
    """Join consecutive blocks of one column whose vertical gap is below ``gap_share`` of a line.

    Some PDF writers emit every line as its own block; without this each line would become a
    paragraph, and a paragraph break ends a sentence.
    """
    merged: list[Block] = []
    for block in blocks:
        if merged:
            last = merged[-1]
            line_height = max(1.0, (last.bbox[3] - last.bbox[1]) / max(1, len(last.lines)))
            gap = block.bbox[1] - last.bbox[3]
            overlap = min(block.bbox[2], last.bbox[2]) - max(block.bbox[0], last.bbox[0])
            same_column = overlap > 0.5 * min(block.width, last.width)
            if same_column and -0.2 * line_height <= gap <= gap_share * line_height:
                merged[-1] = Block(_union([last.bbox, block.bbox]), last.lines + block.lines)
                continue
        merged.append(block)
    return merged


def block_text(block: Block) -> str:
    """A block's lines as one paragraph: words broken by a hyphen at a line end are rejoined."""
    joined = "\n".join(line.text.strip() for line in block.lines)
    joined = _HYPHEN_BREAK.sub(r"\1", joined)
    return re.sub(r"\s+", " ", joined).strip()


def page_text(blocks: Sequence[Block]) -> str:
    """Paragraphs in reading order, separated by blank lines; hyphenation across blocks joined."""
    paragraphs = [text for text in (block_text(b) for b in blocks) if text]
    merged: list[str] = []
    for text in paragraphs:
        if merged and re.search(r"\w-$", merged[-1]) and text[:1].islower():
            merged[-1] = merged[-1][:-1] + text
        else:
            merged.append(text)
    return "\n\n".join(merged)
