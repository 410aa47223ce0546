"""Method rules: MultiConIR conditions and hard negatives, generated positives.

- ``multicon.title``: a condition (or the query) naming the document's title or a name in
  it identifies the document outright, so every retriever scores 1.0 and the query measures
  nothing.
- ``multicon.referent``: a condition (sentence or phrase) that opens with a pronoun or
  demonstrative ("They drill 24 mm holes ...") has lost its subject: the query attaches it to
  whatever it names first. A condition sentence carries the sentence naming its referent.
- ``multicon.hard_negative``: a hard negative d_j differs from the positive only in the
  condition sentences it breaks (conditions j+1..n); any other changed sentence, or no change
  at all, rejects it.
- ``generated.positive``: an LLM-written passage (``generated`` in its metadata) is a positive
  only when it is grounded in its seed passage.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from irforge.check.base import Case, Context, Finding, validator
from irforge.check.grounding import ungrounded
from irforge.check.referents import opening_anaphor
from irforge.check.text import STOPWORDS, content_words, names, normalized, stem, words
from irforge.core.records import Doc

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])")


def _title_names(title: str) -> set[str]:
    return {n.lower() for n in names(f"x {title}") if len(n) > 2}


def _inflected_title(title: str, text: str) -> bool:
    """A title of two content words or more, inflected ("a half-wave dipole" for the title
    "Half-wave dipoles"): its words' stems in a row in ``text``, function words aside."""
    wanted = [stem(p) for w in words(title) for p in w.split("-") if p not in STOPWORDS]
    if len(wanted) < 2:
        return False
    have = [stem(p) for w in words(text) for p in w.split("-") if p not in STOPWORDS]
    return any(have[i:i + len(wanted)] == wanted for i in range(len(have) - len(wanted) + 1))


@validator("multicon.title")
def check_title(case: Case, context: Context) -> Iterator[Finding]:
    """MultiConIR conditions must not identify the document by its title or name."""
    if "condition_phrases" not in case.meta and "conditions" not in case.meta:
        return
    source = case.source or context.docs.get(str(case.meta.get("source_doc", "")))
    if source is None or not source.title.strip():
        return
    title = normalized(source.title)
    title_names = _title_names(source.title)
    texts = {"text": case.text}
    phrases = case.meta.get("condition_phrases") or []
    texts.update({f"condition_phrases {i}": str(p) for i, p in enumerate(phrases, start=1)})
    for name, text in texts.items():
        flat = f" {normalized(text)} "
        hit = [n for n in names(text) if n.lower() in title_names]
        named = bool(content_words(source.title)) and (
            f" {title} " in flat or _inflected_title(source.title, text))
        if named or hit:
            what = repr(source.title) if named else ", ".join(map(repr, hit))
            yield Finding("multicon.title", name, f"names the document's title {what}: the "
                          "condition identifies the document, so retrieval is trivial",
                          "describe the document by its features, never by its title or name")


@validator("multicon.referent")
def check_referents(case: Case, context: Context) -> Iterator[Finding]:
    """Each MultiConIR condition says what it is about: none opens with a pronoun or
    demonstrative whose referent is outside it."""
    for key in ("conditions", "condition_phrases"):
        values = case.meta.get(key)
        for number, value in enumerate(values if isinstance(values, list) else [], start=1):
            word = opening_anaphor(str(value))
            if word:
                yield Finding("multicon.referent", f"{key} {number}",
                              f"condition {number} {str(value)[:60]!r} opens with {word!r}, "
                              "whose referent is outside it",
                              "join the sentence that names what it refers to, or name it")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


@lru_cache(maxsize=1024)
def _changed(positive: str, negative: str) -> tuple[str, ...]:
    """Sentences of the positive that the negative does not keep unchanged."""
    a, b = sentences(positive), sentences(negative)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out: list[str] = []
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag != "equal":
            out.extend(a[i1:i2])
    return tuple(out)


def _broken(conditions: Sequence[str], satisfied: int) -> list[str]:
    return [normalized(c) for c in conditions[satisfied:]]


@validator("multicon.hard_negative")
def check_hard_negatives(case: Case, context: Context) -> Iterator[Finding]:
    """Each hard negative of a full MultiConIR query (k = n) breaks only its conditions."""
    meta = case.meta
    if "conditions" not in meta or meta.get("k") != meta.get("n") \
            or meta.get("style") not in (None, "instruction"):
        return
    source = str(meta.get("source_doc", ""))
    conditions = [str(c) for c in meta.get("conditions") or []]
    variants = [d for d in context.docs.values() if d.metadata.get("source_doc") == source]
    positive = next((d for d in variants if d.metadata.get("kind") == "positive"), None)
    if positive is None:
        return
    for doc in variants:
        if doc.metadata.get("kind") != "hard_negative":
            continue
        satisfied = int(doc.metadata.get("satisfied", 0))
        changed = _changed(positive.text, doc.text)
        broken = _broken(conditions, satisfied)
        if not changed:
            yield Finding("multicon.hard_negative", "corpus", f"hard negative {doc.doc_id} "
                          "is identical to the positive", "modify the condition it breaks")
            continue
        stray = [s for s in changed if not any(b and (b in normalized(s) or normalized(s) in b)
                                               for b in broken)]
        if stray:
            yield Finding("multicon.hard_negative", "corpus", f"hard negative {doc.doc_id} "
                          f"changes {len(stray)} sentence(s) outside the condition(s) it breaks "
                          f"(e.g. {stray[0][:70]!r})",
                          "change only the broken condition's sentence; keep the rest verbatim")


def _generated(doc: Doc) -> bool:
    return bool(doc.metadata.get("generated"))


@validator("generated.positive")
def check_generated_positive(case: Case, context: Context) -> Iterator[Finding]:
    """A generated passage is a positive only when grounded in its seed passage."""
    for doc in case.positives:
        if not _generated(doc):
            continue
        seed = context.docs.get(str(doc.metadata.get("seed_doc_id", "")))
        if seed is None:
            yield Finding("generated.positive", "qrels", f"generated passage {doc.doc_id} has "
                          "no seed passage in the corpus to ground it",
                          "keep generated passages out of the corpus (the default)")
            continue
        problem = ungrounded(doc.text, [f"{seed.title}\n{seed.text}"],
                             context.aliases).problem()
        if problem:
            yield Finding("generated.positive", "qrels", f"generated passage {doc.doc_id} is "
                          f"not grounded in its seed {seed.doc_id}: {problem}",
                          "drop the generated passage; use the seed passage as the positive")
