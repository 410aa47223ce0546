"""Hard-negative documents and length padding: plain code, no LLM (paper section 3.2 step 4).

``d_j`` keeps conditions c_1..c_j and replaces c_{j+1}..c_N in place with their hard-negative
sentences, so it satisfies exactly j conditions; the positive keeps all N. Padding (paper
appendix D.3) inserts filler sentences between the document's sentences until the positive
reaches a word target; every variant of a document gets the same filler at the same places,
so the only difference between the positive and any d_j remains the replaced sentences.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from irforge.generators.multicon.sentences import Span, split_sentences, word_count

DEFAULT_FILLER: tuple[str, ...] = (
    "The kettle sat on the stove.",
    "Rain tapped on the window.",
    "The road ran on toward the hills.",
    "A bird sang somewhere nearby.",
    "The clock on the wall kept ticking.",
)


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``document[start:end]`` with ``text`` (an insertion when start == end)."""

    start: int
    end: int
    text: str


def apply_edits(document: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits, given in any order, to a document."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    pieces: list[str] = []
    cursor = 0
    for edit in ordered:
        if edit.start < cursor:
            raise ValueError(f"edits overlap at offset {edit.start}")
        pieces.append(document[cursor:edit.start])
        pieces.append(edit.text)
        cursor = edit.end
    pieces.append(document[cursor:])
    return "".join(pieces)


def replacement_edits(spans: Sequence[Span], hard_negatives: Sequence[str],
                      keep: int) -> list[Edit]:
    """Edits that keep conditions 1..keep and swap conditions keep+1..N for hard negatives."""
    if len(spans) != len(hard_negatives):
        raise ValueError(f"{len(spans)} conditions but {len(hard_negatives)} hard negatives")
    if not 0 <= keep <= len(spans):
        raise ValueError(f"keep must be in 0..{len(spans)}, got {keep}")
    return [Edit(span.start, span.end, negative)
            for span, negative in list(zip(spans, hard_negatives, strict=True))[keep:]]


def insertion_points(document: str, spans: Sequence[Span]) -> list[int]:
    """Offsets at sentence ends (and the document end) that fall inside no condition span."""
    ends = {sentence.end for sentence in split_sentences(document)} | {len(document.rstrip())}
    return sorted(end for end in ends
                  if not any(span.start < end < span.end for span in spans))


def plan_padding(document: str, spans: Sequence[Span], target_words: int, seed: int | str,
                 filler: Sequence[str] = DEFAULT_FILLER) -> list[Edit]:
    """Seeded filler insertions that bring ``document`` up to ``target_words`` words."""
    missing = target_words - word_count(document)
    if missing <= 0:
        return []
    if not filler:
        raise ValueError("filler must contain at least one sentence")
    rng = random.Random(f"multicon-padding:{seed}")
    points = insertion_points(document, spans)
    chosen: dict[int, list[str]] = {}
    added = 0
    turn = rng.randrange(len(filler))
    while added < missing:
        sentence = filler[turn % len(filler)]
        turn += 1
        chosen.setdefault(rng.choice(points), []).append(sentence)
        added += word_count(sentence)
    return [Edit(point, point, " " + " ".join(sentences))
            for point, sentences in sorted(chosen.items())]


@dataclass(frozen=True, slots=True)
class Variant:
    """One document built from a source: the positive (satisfied == N) or d_j."""

    satisfied: int
    text: str


def build_variants(document: str, spans: Sequence[Span], hard_negatives: Sequence[str],
                   padding: Sequence[Edit] = ()) -> list[Variant]:
    """The positive and d_0..d_{N-1}, sorted by conditions satisfied, most first."""
    n = len(spans)
    return [Variant(keep, apply_edits(document, [*replacement_edits(spans, hard_negatives, keep),
                                                 *padding]))
            for keep in range(n, -1, -1)]


def satisfied_counts(n: int, k: int) -> Mapping[int, int]:
    """How many of q_k's conditions d_j satisfies, for j = 0..N (j == N is the positive)."""
    return {j: min(j, k) for j in range(n + 1)}
