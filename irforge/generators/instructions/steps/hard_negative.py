"""Step 6 of InfoSearch (A.6): a query hard negative, a document that looks relevant to the
query but cannot answer it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import Field

from irforge.generators.instructions.steps.common import (
    STEP,
    _Output,
    _rng,
)
from irforge.generators.instructions.text import (
    content_words,
    jaccard,
    words,
)
from irforge.generators.instructions.units import (
    hard_negative_doc_id,
)
from irforge.steps import Step

# -- step 6: query hard negatives (A.6) ---------------------------------------------------------

class HardNegativeDocument(_Output):
    """A document that looks relevant to the query but cannot answer it (A.6, table 8)."""

    document: str = Field(min_length=1)


ANGLES = ("the history of the subject", "a related but different question",
          "the people or organisations involved", "a neighbouring topic",
          "general background without specifics")


def check_hard_negative(text: str, query: str, positives: Sequence[str],
                        min_words: int = 15, max_similarity: float = 0.6) -> list[str]:
    """Looks on-topic (shares query words) but is no near-copy of a positive document."""
    reasons = []
    if len(words(text)) < min_words:
        reasons.append(f"has {len(words(text))} words (at least {min_words})")
    query_words = content_words(query)
    if query_words and not query_words & content_words(text):
        reasons.append("shares no content word with the query, so it is no hard negative")
    for positive in positives:
        similarity = jaccard(text, positive)
        if similarity >= max_similarity:
            reasons.append(f"word overlap {similarity:.2f} with a positive document "
                           f"(at most {max_similarity}); it may answer the query")
            break
    return reasons


@dataclass(frozen=True)
class HardNegativeItem:
    """Step 6 input: a core query, its positives, and the angle of one hard negative."""

    query_id: str
    query: str
    index: int
    angle: str
    positives: tuple[str, ...]

    @property
    def doc_id(self) -> str:
        return hard_negative_doc_id(self.query_id, self.index)


def angles(seed: int, query_id: str, count: int) -> list[str]:
    """``count`` distinct hard-negative angles for one core query, seeded."""
    return _rng(seed, "angles", query_id).sample(ANGLES, k=min(count, len(ANGLES)))


def hard_negative_step() -> Step[HardNegativeItem, str]:
    """Step 6: a document on a related topic that cannot answer the query."""

    def valid(item: HardNegativeItem, value: HardNegativeDocument) -> list[str]:
        return check_hard_negative(value.document, item.query, item.positives)

    return Step(
        name=f"{STEP}.hard_negative", template="instructions.hard_negative",
        output_model=HardNegativeDocument,
        variables=lambda item: {"query": item.query, "angle": item.angle},
        item_id=lambda item: item.doc_id, validators=(valid,),
        accept=lambda item, value: value.document.strip(),
        metadata=lambda item: {"angle": item.angle, "source_doc": item.doc_id})
