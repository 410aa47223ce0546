"""InfoSearch's LLM steps (paper 2.2 steps 1-6), each read top to bottom here: the output
model the LLM fills, the plain-code checks of that output, and the :class:`Step` that ties them
to its prompt template.

Steps: 1 ``keyword`` (a keyword condition picked from the document), 4 ``rewrite`` (a document
rewritten into a missing condition value), 3 ``instruction`` (the query plus one sentence
stating the condition), 5 ``reverse`` (the same request with the condition negated), 6
``hard_negative`` (a document that looks relevant but cannot answer). Output models stay flat
(one string) so small models follow them; where a step picks from its input (the keyword) the
schema enumerates the allowed choices, so constrained decoding is verbatim by construction,
and the check runs again for providers that do not constrain. Checks return the reasons they
reject (empty: accepted). Randomness (phrasings, forum user names, angles) comes from
``random.Random`` seeded with the run seed and the item id.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from irforge.generators.instructions.dimensions import ConditionValue, Dimension
from irforge.generators.instructions.text import (
    STOPWORDS,
    content_words,
    han_ratio,
    has_negation,
    jaccard,
    mentions,
    normalize,
    paragraphs,
    sentences,
    words,
)
from irforge.generators.instructions.units import (
    Group,
    Member,
    Unit,
    hard_negative_doc_id,
    rewritten_doc_id,
    unit_id,
)
from irforge.records import Doc
from irforge.steps import Rejected, Step

STEP = "instructions"


# -- output models: shared settings -----------------------------------------------------------

def _without_description(schema: dict[str, Any]) -> None:
    """Keep docstrings out of the schema shown to the model (small models copy them)."""
    schema.pop("description", None)


class _Output(BaseModel):
    model_config = ConfigDict(json_schema_extra=_without_description)


def shown(condition: str) -> str:
    """A condition value as words for prompts (``forum_post`` -> ``forum post``)."""
    return condition.replace("_", " ")


def _rng(seed: int, *key: str) -> random.Random:
    return random.Random(":".join((str(seed), *key)))


NEGATION_WINDOW = 8  # words between a negation cue and the condition term it negates
MAX_KEYWORD_WORDS = 4
MAX_QUERY_WORDS = 80
_GENERIC_USER = re.compile(r"^(?:user|anonymous|anon|username|poster|member|person|guest)"
                           r"[\s_-]*[a-z]?\d*$", re.IGNORECASE)
_SPEAKER = re.compile(r"^\s*[@*]*([^\W\d_][\w.\-]{1,30})[*]*\s*(?:\([^)]*\))?\s*(?::|wrote:|said:)",
                      re.MULTILINE | re.UNICODE)
_CODE_LINE = re.compile(r"[=;{}]|\w\(.*\)|^\s*(?:def|import|from|class|return|for|if|print|"
                        r"function|var|let|const|#include|SELECT|\$)\b", re.IGNORECASE)
_MANUAL_MARK = re.compile(r"^\s*(?:#{1,6}\s|\d+(?:\.\d+)*[.)]?\s|[-*•]\s|(?:note|warning|usage|"
                          r"parameters?|returns?|syntax|section|step \d+|description)\b)",
                          re.IGNORECASE | re.MULTILINE)
_DATE = re.compile(r"\b(?:1[89]\d\d|20\d\d)\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
                   r"nov|dec)[a-z]*\.?\s+\d{1,2}\b", re.IGNORECASE)
_BYLINE = re.compile(r"\bby\s+[A-Z]|\bauthor\b|\bposted by\b|\bwritten by\b", re.IGNORECASE)


def _query_checks(text: str, core_query: str) -> list[str]:
    reasons = []
    if not text.strip():
        return ["text is empty"]
    if len(words(text)) > MAX_QUERY_WORDS:
        reasons.append(f"has {len(words(text))} words (at most {MAX_QUERY_WORDS})")
    query_words = content_words(core_query)
    if query_words and not query_words & content_words(text):
        reasons.append("shares no content word with the core query (the query must be kept)")
    return reasons


# -- step 1: keyword condition (A.1) -----------------------------------------------------------

class KeywordCondition(_Output):
    """A keyword condition for one query-document pair (A.1, table 3)."""

    keyword: str = Field(min_length=1, max_length=60,
                         description="a term from the document that refines the query")


MAX_KEYWORD_CHOICES = 40


def keyword_choices(query: str, document: str, others: Sequence[str] = ()) -> tuple[str, ...]:
    """Terms of the document that pass :func:`check_keyword`: content words and two-word
    names, in document order, at most :data:`MAX_KEYWORD_CHOICES`."""
    tokens = re.findall(r"[^\W_]+(?:['’-][^\W_]+)*", document)
    candidates: list[str] = []
    for index, token in enumerate(tokens):
        candidates.append(token)
        if index + 1 < len(tokens):
            candidates.append(f"{token} {tokens[index + 1]}")
    seen: set[str] = set()
    out: list[str] = []
    for term in candidates:
        key = normalize(term)
        if key in seen or len(key) < 3 or any(w in STOPWORDS for w in words(term)):
            continue
        seen.add(key)
        if not check_keyword(term, query, document, others) and not mentions(query, term):
            out.append(term)
    return tuple(out[:MAX_KEYWORD_CHOICES])


@lru_cache(maxsize=256)
def keyword_model(choices: tuple[str, ...]) -> type[KeywordCondition]:
    """KeywordCondition whose schema enumerates the terms the document allows."""
    if not choices:
        return KeywordCondition
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"KeywordCondition{len(choices)}x{abs(hash(choices)) % 10**8}",
        __base__=KeywordCondition,
        keyword=(str, Field(min_length=1, max_length=60,
                            json_schema_extra={"enum": list(choices)})))


def clean_keyword(keyword: str) -> str:
    """The keyword without surrounding quotes, brackets, labels or punctuation."""
    text = keyword.strip()
    text = re.sub(r"^(?:condition|keyword)\s*:\s*", "", text, flags=re.IGNORECASE)
    return text.strip(" \t\n\"'“”‘’`[](){}<>.,;:!?")


def check_keyword(keyword: str, query: str, document: str,
                  other_documents: Sequence[str] = ()) -> list[str]:
    """A keyword must be a content term found in its document and in no other positive."""
    term = clean_keyword(keyword)
    tokens = words(term)
    if not tokens:
        return ["keyword is empty"]
    reasons = []
    if len(tokens) > MAX_KEYWORD_WORDS:
        reasons.append(f"keyword has {len(tokens)} words (at most {MAX_KEYWORD_WORDS})")
    if all(token in STOPWORDS for token in tokens):
        reasons.append(f"keyword {term!r} is a stop-word")
    if normalize(term) == normalize(query).rstrip("?.!"):
        reasons.append("keyword repeats the whole query")
    if not mentions(document, term):
        reasons.append(f"keyword {term!r} does not occur in the document")
    shared = sum(mentions(other, term) for other in other_documents)
    if shared:
        reasons.append(f"keyword {term!r} also occurs in {shared} other positive document(s) "
                       "of the query, so it cannot single out one document")
    return reasons


@dataclass(frozen=True)
class KeywordItem:
    """Step 1 input: one positive of a group whose keyword is still to be extracted."""

    group: Group
    member: Member

    @property
    def key(self) -> str:
        return f"{self.group.query_id}/{self.member.doc.doc_id}"

    @property
    def others(self) -> list[str]:
        return [m.doc.text for m in self.group.members if m.doc.doc_id != self.member.doc.doc_id]


def keyword_step() -> Step[KeywordItem, str]:
    """Step 1: one keyword of the document that narrows the query to it."""

    def valid(item: KeywordItem, value: KeywordCondition) -> list[str]:
        return check_keyword(value.keyword, item.group.query, item.member.doc.text, item.others)

    return Step(
        name=f"{STEP}.keyword", template="instructions.keyword",
        output_model=lambda item: keyword_model(keyword_choices(
            item.group.query, item.member.doc.text, item.others)),
        variables=lambda item: {"query": item.group.query, "document": item.member.doc.text},
        item_id=lambda item: item.key, validators=(valid,),
        accept=lambda item, value: clean_keyword(value.keyword),
        metadata=lambda item: {"dimension": item.group.dimension,
                               "source_doc": item.member.doc.doc_id})


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


def rewrite_step(template: str) -> Step[RewriteItem, str]:
    """Step 4: the source document rewritten into the target condition value (one template
    per dimension, named by the dimension's rewrite rule)."""

    def valid(item: RewriteItem, value: RewrittenDocument) -> list[str]:
        return check_rewrite(value.document, item.source.doc.text, item.spec.value(item.target),
                             item.names)

    def variables(item: RewriteItem) -> dict[str, Any]:
        value = item.spec.value(item.target)
        return {"query": item.group.query, "document": item.source.doc.text,
                "source_description": item.spec.value(item.source.condition).description,
                "target": shown(item.target), "target_description": value.description,
                "requirements": requirements(value, item.names)}

    return Step(
        name=f"{STEP}.rewrite", template=template, output_model=RewrittenDocument,
        variables=variables, item_id=lambda item: f"{item.group.query_id}/{item.doc_id}",
        validators=(valid,), accept=lambda item, value: value.document.strip(),
        metadata=lambda item: {"dimension": item.group.dimension, "condition": item.target,
                               "source_doc_id": item.source.doc.doc_id,
                               "source_doc": item.doc_id})


# -- step 3: instructions (A.3) ------------------------------------------------------------------

class InstructedQuery(_Output):
    """The query rephrased, then one sentence stating the constraint (A.3, table 5)."""

    instructed_query: str = Field(min_length=1)


# Schema-only patterns for constrained decoders: two sentences, the first keeping a word of the
# core query, the second naming the condition (after a negation cue, for a reversal). Pydantic
# does not enforce them; the checks below run on every answer either way.
_CHUNK = r'[^"\\.?!\n]*'
_NEGATION_CUES = ("not", "without", "other than", "avoid", "except", "rather than")


def _alternatives(phrases: Sequence[str]) -> str | None:
    """``(a|b)`` matching any phrase, first letter in either case; None when no phrase is
    plain words (other characters are left to the post-hoc checks)."""
    plain = [p for p in dict.fromkeys(" ".join(p.split()) for p in phrases)
             if p and re.fullmatch(r"[^\W_]+(?:[ '-][^\W_]+)*", p)]
    if not plain:
        return None
    return "(" + "|".join(f"[{p[0].upper()}{p[0].lower()}]{p[1:]}" if p[0].isalpha() else p
                          for p in plain) + ")"


def request_pattern(core_query: str, terms: Sequence[str], negated: bool = False) -> str | None:
    """The two-sentence shape of an instruction (or of its reversal, ``negated``) as a
    JSON-schema pattern; None when the query or the terms give nothing to match."""
    query_words = _alternatives(sorted(content_words(core_query)))
    condition = _alternatives(terms)
    if query_words is None or condition is None:
        return None
    cue = ("(" + "|".join(_NEGATION_CUES) + r')( [^" \\.?!\n]+){0,4} ') if negated else ""
    return (f"^{_CHUNK}{query_words}{_CHUNK}[.?!] {_CHUNK}{cue}{condition}{_CHUNK}[.?!]$")


@lru_cache(maxsize=256)
def _request_model(base: type[_Output], field: str, pattern: str | None) -> type[_Output]:
    if pattern is None:
        return base
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"{base.__name__}{abs(hash(pattern)) % 10**8}", __base__=base,
        **{field: (str, Field(min_length=1, json_schema_extra={"pattern": pattern}))})


PHRASINGS = ("a polite request", "a direct instruction", "a question",
             "a plain statement of what you need", "a short casual remark")


def _term_positions(sentence: str, terms: Sequence[str]) -> list[int]:
    text = normalize(sentence)
    found = []
    for term in terms:
        phrase = normalize(term)
        if not phrase:
            continue
        pattern = r"(?<![^\W_])" + re.escape(phrase) + r"(?:s|es)?(?![^\W_])"
        found.extend(match.start() for match in re.finditer(pattern, text))
    return found


def condition_mentions(text: str, terms: Sequence[str]) -> tuple[int, int]:
    """Counts of (plain, negated) mentions of the condition's terms across the sentences."""
    plain = negated = 0
    for sentence in sentences(text) or [text]:
        lowered = normalize(sentence)
        for position in _term_positions(sentence, terms):
            before = lowered[:position]
            window = " ".join(before.split()[-NEGATION_WINDOW:])
            if has_negation(window):
                negated += 1
            else:
                plain += 1
    return plain, negated


def check_instruction(text: str, core_query: str, condition: ConditionValue) -> list[str]:
    """Two-sentence style (query, then constraint) that states the condition positively."""
    reasons = _query_checks(text, core_query)
    if reasons and reasons[0] == "text is empty":
        return reasons
    count = len(sentences(text))
    if not 2 <= count <= 3:
        reasons.append(f"has {count} sentence(s); expected the rephrased query, then the "
                       "constraint (2 sentences)")
    plain, negated = condition_mentions(text, condition.terms)
    if plain == 0:
        what = "negates" if negated else "does not mention"
        reasons.append(f"{what} the condition {condition.name!r} "
                       f"(expected one of: {', '.join(condition.terms[:6])})")
    return reasons


@dataclass(frozen=True)
class InstructionItem:
    """Step 3 input: one positive of a group, the condition it meets and a phrasing style."""

    group: Group
    member: Member
    condition: ConditionValue
    index: int
    phrasing: str

    @property
    def key(self) -> str:
        return unit_id(self.group.query_id, self.group.dimension, self.member.condition,
                       self.index)


def phrasing_styles(seed: int, group: Group, member: Member, count: int) -> list[str]:
    """``count`` distinct phrasing styles for one positive, seeded by the run and the pair."""
    return _rng(seed, "phrasing", group.query_id, member.doc.doc_id).sample(
        PHRASINGS, k=min(count, len(PHRASINGS)))


def instruction_step() -> Step[InstructionItem, Unit]:
    """Step 3: the core query plus one sentence asking for the member's condition; two units
    of one run never share a text."""
    seen: dict[str, str] = {}

    def valid(item: InstructionItem, value: InstructedQuery) -> list[str]:
        return check_instruction(value.instructed_query, item.group.query, item.condition)

    def accept(item: InstructionItem, value: InstructedQuery) -> Unit:
        text = " ".join(value.instructed_query.split())
        twin = seen.get(normalize(text))
        if twin:
            raise Rejected(f"same text as {twin}")
        seen[normalize(text)] = item.key
        return Unit(item.key, item.group.query_id, item.group.dimension, item.member.condition,
                    item.member.doc.doc_id, text, "", item.phrasing)

    return Step(
        name=f"{STEP}.instruction", template="instructions.instruction",
        output_model=lambda item: _request_model(
            InstructedQuery, "instructed_query",
            request_pattern(item.group.query, item.condition.terms)),
        variables=lambda item: {"query": item.group.query, "dimension": item.group.dimension,
                                "condition": shown(item.member.condition),
                                "condition_description": item.condition.description,
                                "phrasing": item.phrasing},
        item_id=lambda item: item.key, validators=(valid,), accept=accept,
        metadata=lambda item: {"dimension": item.group.dimension,
                               "condition": item.member.condition,
                               "source_doc": item.member.doc.doc_id},
        queries_of=lambda item, unit: [unit.instructed],
        source_of=lambda item: (item.member.doc.title, item.member.doc.text))


# -- step 5: reversed instructions (A.5) --------------------------------------------------------

class ReversedQuery(_Output):
    """The instructed query with its constraint negated (A.5, table 7)."""

    reversed_query: str = Field(min_length=1)


def check_reversal(reversed_text: str, instructed_text: str, core_query: str,
                   condition: ConditionValue) -> list[str]:
    """A reversal differs from the instruction and negates the same condition."""
    reasons = _query_checks(reversed_text, core_query)
    if reasons and reasons[0] == "text is empty":
        return reasons
    if normalize(reversed_text) == normalize(instructed_text):
        reasons.append("reversed instruction is identical to the instruction")
    _, negated = condition_mentions(reversed_text, condition.terms)
    if negated == 0:
        reasons.append(f"does not negate the condition {condition.name!r} (expected a negation "
                       f"such as 'not' or 'other than' before: {', '.join(condition.terms[:6])})")
    return reasons


@dataclass(frozen=True)
class ReverseItem:
    """Step 5 input: an accepted unit, its core query, condition and gold document."""

    unit: Unit
    query: str
    condition: ConditionValue
    gold: Doc  # the passage the query was written from


def reverse_step() -> Step[ReverseItem, Unit]:
    """Step 5: the unit's request with its condition negated."""

    def valid(item: ReverseItem, value: ReversedQuery) -> list[str]:
        return check_reversal(value.reversed_query, item.unit.instructed, item.query,
                              item.condition)

    def accept(item: ReverseItem, value: ReversedQuery) -> Unit:
        u = item.unit
        return Unit(u.unit_id, u.query_id, u.dimension, u.condition, u.gold_doc_id,
                    u.instructed, " ".join(value.reversed_query.split()), u.phrasing)

    return Step(
        name=f"{STEP}.reverse", template="instructions.reverse",
        output_model=lambda item: _request_model(
            ReversedQuery, "reversed_query",
            request_pattern(item.query, item.condition.terms, negated=True)),
        variables=lambda item: {"query": item.query, "instructed": item.unit.instructed,
                                "dimension": item.unit.dimension,
                                "condition": shown(item.unit.condition)},
        item_id=lambda item: item.unit.unit_id, validators=(valid,), accept=accept,
        metadata=lambda item: {"dimension": item.unit.dimension,
                               "condition": item.unit.condition,
                               "source_doc": item.unit.gold_doc_id},
        queries_of=lambda item, unit: [unit.reversed],
        source_of=lambda item: (item.gold.title, item.gold.text))


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
