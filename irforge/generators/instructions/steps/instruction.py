"""Steps 3 and 5 of InfoSearch (A.3, A.5): the instructed query (query + one sentence stating
the condition) and its reversal (the same request with the condition negated).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from pydantic import Field, create_model

from irforge.core.digest import short_digest
from irforge.core.records import Doc
from irforge.generators.instructions.dimensions import ConditionValue
from irforge.generators.instructions.steps.common import (
    NEGATION_WINDOW,
    STEP,
    _Output,
    _query_checks,
    _rng,
    shown,
)
from irforge.generators.instructions.text import (
    content_words,
    has_negation,
    normalize,
    sentences,
)
from irforge.generators.instructions.units import (
    Group,
    Member,
    Unit,
    unit_id,
)
from irforge.prompts.forms import form_metadata, instructed_pattern, query_form
from irforge.prompts.forms import sentences as form_sentences
from irforge.steps import Rejected, Step

# -- step 3: instructions (A.3) ------------------------------------------------------------------

class InstructedQuery(_Output):
    """The query rephrased, then one sentence stating the constraint (A.3, table 5)."""

    instructed_query: str = Field(min_length=1)


# Schema-only patterns for constrained decoders: the instructed form (irforge/prompts/forms.py
# instructed_pattern): a core query of one or more sentences keeping a word of the query, then
# one sentence naming the condition (after a negation cue, for a reversal). Pydantic does not
# enforce them; the checks below run on every answer either way.
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
    """The instructed form of a request (or of its reversal, ``negated``) as a JSON-schema
    pattern; None when the query or the terms give nothing to match."""
    query_words = _alternatives(sorted(content_words(core_query)))
    condition = _alternatives(terms)
    if query_words is None or condition is None:
        return None
    cue = ("(" + "|".join(_NEGATION_CUES) + r')( [^" \\.?!\n]+){0,4} ') if negated else ""
    return instructed_pattern(query_words, condition, cue)


@lru_cache(maxsize=256)
def _request_model(base: type[_Output], field: str, pattern: str | None) -> type[_Output]:
    if pattern is None:
        return base
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"{base.__name__}{short_digest(pattern)}", __base__=base,
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


def form_problems(text: str, core_query: str, form: str) -> list[str]:
    """The instructed form (irforge/prompts/forms.yaml): the core query (as many sentences
    as it has, one more allowed for a rewording), then an instruction sentence; at most the
    core's words plus the form's instruction budget."""
    declared = query_form(form)
    problem = declared.problem(text, core=core_query)
    count, allowed = len(form_sentences(text)), len(form_sentences(core_query)) + 2
    length = declared.length_problem(text, core=core_query)
    if problem and problem != length:
        return [f"has {count} sentence(s), {problem}: expected the query, then one sentence "
                "stating the constraint"]
    if count > allowed:
        return [f"has {count} sentences; expected the query ({allowed - 2} sentence(s), one "
                "more allowed), then one sentence stating the constraint"]
    return [length] if length else []


def request_tokens(core_query: str, form: str) -> int:
    """The output token limit of an instructed (or reversed, ``form``) query: the answer
    repeats its core query whole and adds an instruction, so the most words its form allows
    for that core (irforge/prompts/forms.yaml ``instruction_words``), to tokens with a
    margin (irforge.steps.word_budget), and never below what its schema alone gives."""
    from irforge.llm.degeneration import schema_token_limit
    from irforge.llm.structured import output_schema
    from irforge.steps.word_budget import tokens_for_words

    _, most = query_form(form).word_bounds(core=core_query)
    return max(schema_token_limit(output_schema(InstructedQuery)), tokens_for_words([most]))


def check_instruction(text: str, core_query: str, condition: ConditionValue) -> list[str]:
    """The instructed form (the query, then a constraint sentence) stating the condition
    positively."""
    reasons = _query_checks(text, core_query)
    if reasons and reasons[0] == "text is empty":
        return reasons
    reasons.extend(form_problems(text, core_query, "instructed"))
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
        max_tokens=lambda item: request_tokens(item.group.query, "instructed"),
        output_model=lambda item: _request_model(
            InstructedQuery, "instructed_query",
            request_pattern(item.group.query, item.condition.terms)),
        variables=lambda item: {"query": item.group.query, "dimension": item.group.dimension,
                                "condition": shown(item.member.condition),
                                "condition_description": item.condition.description,
                                "phrasing": item.phrasing, "phrase": item.condition.said},
        item_id=lambda item: item.key, validators=(valid,), accept=accept,
        metadata=lambda item: {"dimension": item.group.dimension,
                               "condition": item.member.condition,
                               "source_doc": item.member.doc.doc_id},
        queries_of=lambda item, unit: [unit.instructed],
        # the instructed form (irforge/prompts/forms.yaml): grounded on its core query; the
        # instruction is the instruction rules' to check
        query_metadata=lambda item, unit: {
            **form_metadata(query_form("instructed")), **item.group.core_form,
            "core_query": item.group.query, "dimension": item.group.dimension,
            "condition": item.member.condition,
            "condition_description": item.condition.description,
            "gold_doc_id": item.member.doc.doc_id,
            "positive_passages": [m.doc for m in item.group.members]},
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
    reasons.extend(form_problems(reversed_text, core_query, "reversed"))
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
    members: tuple[Doc, ...] = ()  # every positive of the query (the validators ground it)
    # what the negated condition leaves: the dimension's other values, described ("not
    # expert" is "written for a general reader"), which a reversal may say in those words
    others: tuple[str, ...] = ()
    core_form: Mapping[str, str] = field(default_factory=dict)  # the core query's own form


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
        max_tokens=lambda item: request_tokens(item.query, "reversed"),
        output_model=lambda item: _request_model(
            ReversedQuery, "reversed_query",
            request_pattern(item.query, item.condition.terms, negated=True)),
        variables=lambda item: {"query": item.query, "instructed": item.unit.instructed,
                                "dimension": item.unit.dimension,
                                "condition": shown(item.unit.condition),
                                "phrase": item.condition.said},
        item_id=lambda item: item.unit.unit_id, validators=(valid,), accept=accept,
        metadata=lambda item: {"dimension": item.unit.dimension,
                               "condition": item.unit.condition,
                               "source_doc": item.unit.gold_doc_id},
        queries_of=lambda item, unit: [unit.reversed],
        query_metadata=lambda item, unit: {
            **form_metadata(query_form("reversed")), **item.core_form,
            "core_query": item.query, "dimension": item.unit.dimension,
            "positive_passages": list(item.members or (item.gold,)),
            "condition": item.unit.condition, "gold_doc_id": item.unit.gold_doc_id,
            "condition_description": "; ".join(item.others)},
        source_of=lambda item: (item.gold.title, item.gold.text))


