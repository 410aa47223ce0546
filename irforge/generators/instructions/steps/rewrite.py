"""Step 4 of InfoSearch (A.4): a document rewritten into a missing condition value (audience,
length, source), with the checks of each value's markers and bounds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from irforge.generators.instructions.dimensions import ConditionValue, Dimension
from irforge.generators.instructions.steps.common import (
    _BYLINE,
    _CODE_LINE,
    _DATE,
    _GENERIC_USER,
    _MANUAL_MARK,
    _SPEAKER,
    STEP,
    _Output,
    _rng,
    shown,
)
from irforge.generators.instructions.text import (
    content_words,
    han_ratio,
    normalize,
    paragraphs,
    sentences,
    words,
)
from irforge.generators.instructions.units import (
    SEED,
    Group,
    Member,
    rewritten_doc_id,
)
from irforge.prompts.context import doc_context
from irforge.steps import Step

# -- step 4: document rewriting (A.4) ------------------------------------------------------------

class RewrittenDocument(_Output):
    """A document rewritten to satisfy one condition value (A.4, table 6)."""

    document: str = Field(min_length=1)


_NAME_PARTS = (("river", "amber", "quiet", "copper", "night", "salt", "maple", "north", "lucky",
                "slow", "paper", "iron", "wild", "blue", "frost"),
               ("fox", "heron", "otter", "pine", "stone", "lark", "moth", "wren", "comet",
                "fern", "badger", "reef", "kite", "cedar", "finch"))


def user_names(seed: int, key: str, count: int) -> list[str]:
    """``count`` distinct, real-looking forum user names, the same for the same seed and key."""
    rng = _rng(seed, "users", key)
    names: list[str] = []
    while len(names) < count:
        first, second = rng.choice(_NAME_PARTS[0]), rng.choice(_NAME_PARTS[1])
        name = rng.choice((f"{first}_{second}", f"{first.title()}{second.title()}",
                           f"{first}.{second}{rng.randint(2, 99)}"))
        if name not in names:
            names.append(name)
    return names


def requirements(condition: ConditionValue, names: Sequence[str] = ()) -> str:
    """Plain-language requirements a rewrite must meet, from the condition's bounds/markers."""
    parts = []
    bounds, markers = dict(condition.bounds), dict(condition.markers)
    if "min_words" in bounds or "max_words" in bounds:
        low, high = bounds.get("min_words"), bounds.get("max_words")
        span = (f"between {low} and {high}" if low and high else
                f"at least {low}" if low else f"at most {high}")
        parts.append(f"Use {span} words.")
    if bounds.get("max_sentences") == 1:
        parts.append("Write exactly one sentence.")
    if bounds.get("min_paragraphs", 0) >= 2:
        parts.append(f"Write at least {bounds['min_paragraphs']} paragraphs separated by blank "
                     "lines.")
    if markers.get("min_users") and names:
        parts.append("Write it as a discussion among these users, each turn on its own line "
                     f"starting with the user name and a colon: {', '.join(names)}.")
    if markers.get("blog"):
        parts.append("Start with a title line, then a byline line with the author ('By ...'), "
                     "a publication date, the word 'Blog' and a section name.")
    if markers.get("code"):
        parts.append("Give only code, in a fenced code block.")
    if markers.get("manual"):
        parts.append("Structure it like official documentation, with headings or numbered "
                     "steps and a 'Note:' line.")
    return " ".join(parts)


def forum_speakers(text: str) -> set[str]:
    """Distinct user names that open a line of a forum thread (``name: ...``)."""
    return {match.group(1) for match in _SPEAKER.finditer(text)}


def _marker_checks(text: str, markers: dict, user_names: Sequence[str]) -> list[str]:
    reasons = []
    min_users = int(markers.get("min_users", 0))
    if min_users:
        speakers = forum_speakers(text)
        generic = sorted(name for name in speakers if _GENERIC_USER.match(name))
        if generic:
            reasons.append(f"forum uses generic user names {generic}; use real-looking names")
        if len(speakers) - len(generic) < min_users:
            reasons.append(f"forum post has {len(speakers) - len(generic)} distinct user(s) "
                           f"opening lines as 'name: ...'; needs at least {min_users}")
        elif user_names and not speakers & set(user_names):
            reasons.append("forum post uses none of the user names it was given")
    if markers.get("code") and sum(bool(_CODE_LINE.search(line))
                                   for line in text.splitlines()) < 1 and "```" not in text:
        reasons.append("no code found (expected a fenced block or lines of code)")
    if markers.get("manual") and not _MANUAL_MARK.search(text):
        reasons.append("no manual structure found (headings, numbered steps, Note:/Usage:)")
    if markers.get("blog"):
        head = "\n".join(text.strip().splitlines()[:4])
        if not re.search(r"\bblog\b", head, re.IGNORECASE):
            reasons.append("blog byline must contain the word 'Blog' near the title")
        if not _DATE.search(head):
            reasons.append("blog byline has no publication date")
        if not _BYLINE.search(head):
            reasons.append("blog byline names no author ('by ...')")
    script = markers.get("script")
    if script == "han" and han_ratio(text) < 0.5:
        reasons.append("text is not mainly Chinese")
    if script == "latin" and han_ratio(text) > 0.1:
        reasons.append("text is not in a Latin-script language")
    return reasons


def _bound_checks(text: str, bounds: dict) -> list[str]:
    measures = {"words": len(words(text)), "sentences": len(sentences(text)),
                "paragraphs": len(paragraphs(text))}
    reasons = []
    for unit, value in measures.items():
        low, high = bounds.get(f"min_{unit}"), bounds.get(f"max_{unit}")
        if low is not None and value < low:
            reasons.append(f"has {value} {unit}, below the minimum {low}")
        if high is not None and value > high:
            reasons.append(f"has {value} {unit}, above the maximum {high}")
    return reasons


def check_document(text: str, condition: ConditionValue,
                   user_names: Sequence[str] = ()) -> list[str]:
    """Does a document show the markers and lengths its condition value requires?"""
    if not text.strip():
        return ["document is empty"]
    return (_bound_checks(text, dict(condition.bounds))
            + _marker_checks(text, dict(condition.markers), user_names))


def check_rewrite(text: str, source_text: str, condition: ConditionValue,
                  user_names: Sequence[str] = (), min_length_ratio: float = 1 / 3) -> list[str]:
    """A rewrite keeps the source's topic, differs from it, and satisfies its condition.

    Without word bounds on the condition (Audience, Source), a rewrite must also keep at least
    ``min_length_ratio`` of the source's words: a title alone is no rewrite.
    """
    reasons = check_document(text, condition, user_names)
    if not text.strip():
        return reasons
    bounded = "min_words" in condition.bounds or "max_words" in condition.bounds
    if not bounded and len(words(text)) < min_length_ratio * len(words(source_text)):
        reasons.append(f"has {len(words(text))} words, under {min_length_ratio:.2f} of the "
                       f"source's {len(words(source_text))}; the rewrite drops content")
    if normalize(text) == normalize(source_text):
        reasons.append("rewrite is identical to the source document")
    source_words = content_words(source_text)
    needed = min(2, len(source_words))
    if len(source_words & content_words(text)) < needed:
        reasons.append("rewrite shares almost no content word with the source (topic lost)")
    return reasons


@dataclass(frozen=True)
class RewriteItem:
    """Step 4 input: a group's source document and the condition value to rewrite it into."""

    group: Group
    spec: Dimension
    source: Member
    target: str
    names: tuple[str, ...] = ()

    @property
    def doc_id(self) -> str:
        return rewritten_doc_id(self.source.doc.doc_id, self.group.dimension, self.target)


def rewrite_tokens(condition: ConditionValue, source_text: str) -> int:
    """Step 4's output limit: the words the rewrite may take (the target's word bound, else
    the source's length, which an unbounded rewrite keeps), never under the schema's."""
    from irforge.llm.degeneration import schema_token_limit
    from irforge.llm.structured import output_schema
    from irforge.steps.word_budget import OPEN_ENDED, tokens_for_words

    bounds = dict(condition.bounds)
    if "max_words" in bounds:
        allowed = int(bounds["max_words"])
    else:
        floor = int(bounds.get("min_words", 0))
        allowed = int(max(floor, len(words(source_text))) * OPEN_ENDED)
    return max(schema_token_limit(output_schema(RewrittenDocument)),
               tokens_for_words([allowed]))


def rewrite_token_limit(item: RewriteItem) -> int:
    """:func:`rewrite_tokens` of one step-4 item."""
    return rewrite_tokens(item.spec.value(item.target), item.source.doc.text)


def rewrite_step(template: str) -> Step[RewriteItem, str]:
    """Step 4: the source document rewritten into the target condition value (one template
    per dimension, named by the dimension's rewrite rule)."""

    def valid(item: RewriteItem, value: RewrittenDocument) -> list[str]:
        return check_rewrite(value.document, item.source.doc.text, item.spec.value(item.target),
                             item.names)

    def variables(item: RewriteItem) -> dict[str, Any]:
        value = item.spec.value(item.target)
        seeded = item.source.condition == SEED
        return {"query": item.group.query, "document": item.source.doc.text,
                "context": doc_context(item.source.doc),
                # a seed's own value is not known, so the prompt does not assert one
                "source_description": ("" if seeded else
                                       item.spec.value(item.source.condition).description),
                "target": shown(item.target), "target_description": value.description,
                "requirements": requirements(value, item.names)}

    return Step(
        name=f"{STEP}.rewrite", template=template, output_model=RewrittenDocument,
        max_tokens=rewrite_token_limit, variables=variables,
        item_id=lambda item: f"{item.group.query_id}/{item.doc_id}",
        validators=(valid,), accept=lambda item, value: value.document.strip(),
        metadata=lambda item: {"dimension": item.group.dimension, "condition": item.target,
                               "source_doc_id": item.source.doc.doc_id,
                               "source_doc": item.doc_id,
                               # what a reviewer checks (Label Studio job instruction_compliance)
                               "query": item.group.query,
                               "instruction": item.spec.value(item.target).description})


