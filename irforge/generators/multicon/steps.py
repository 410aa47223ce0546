"""MultiConIR's LLM steps (paper section 3.2, appendix B), each read top to bottom here:
the output model the LLM fills, the plain-code checks of that output, and the :class:`Step`
that ties them to the prompt template.

Steps: 1 ``conditions`` (N condition sentences chosen by id from the document's numbered
condition units, ``units.py``, so they are verbatim by construction and name their own
subject: ``irforge.steps.choices``), 2
``condition_phrase`` (each condition sentence as a short search condition: written by the
model, or key terms picked from an enumerated list; the instruction-style query q_k lists the
first k phrases, so q_{k+1} extends q_k by one condition) and ``descriptive_query`` (prose over
the first k conditions), 3
``hard_negative`` (each condition sentence rewritten, strategy ``modify`` or ``keyword``), and
the shared adaptive decomposition (``irforge.steps.decomposition``). List lengths are part of
the schemas so constrained decoding asks for exactly what is wanted; the checks run again
because not every provider enforces a schema. Each check returns the cleaned value or raises
:class:`Rejected` with the reason kept in ``failures.jsonl``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model, field_validator

from irforge.check.generation import echo_check
from irforge.check.referents import opening_anaphor
from irforge.core.records import Doc
from irforge.generators.multicon.domains import Domain, shown_features
from irforge.generators.multicon.phrases import PHRASE_WORDS, validate_phrase
from irforge.generators.multicon.sentences import (
    MIN_WORDS,
    Located,
    Span,
    locate,
    normalize,
    split_sentences,
    word_count,
)
from irforge.generators.multicon.terms import (
    asked_terms,
    contains_term,
    content_words,
    key_terms,
    salient_terms,
)
from irforge.generators.multicon.units import candidate_sentences, resolved
from irforge.prompts.context import doc_context
from irforge.steps import Rejected, Step
from irforge.steps.choices import choice_model, numbered, picked

STEP = "multicon"


# -- output models ---------------------------------------------------------------------------

# Strings carry no maxLength: llama.cpp unrolls it into one grammar rule per character, and
# long limits crash its grammar parser. Over-long output ends as status "truncated" instead.
Sentence = str
Phrase = str


def distinct(items: list[str], what: str) -> list[str]:
    """Refuse empty or repeated items, so the engine re-asks with the reason."""
    seen: dict[str, int] = {}
    for index, item in enumerate(items, start=1):
        key = normalize(item)
        if not key:
            raise ValueError(f"{what} {index} is empty")
        if key in seen:
            raise ValueError(f"{what} {index} repeats {what} {seen[key]}; each must differ")
        seen[key] = index
    return items


def chosen_conditions(document: str, ids: Sequence[int], n: int) -> list[Located]:
    """Step 1's chosen sentence ids as located condition sentences, in document order."""
    if len(ids) != n:
        raise Rejected(f"expected {n} condition sentences, got {len(ids)}")
    try:
        spans = picked(candidate_sentences(document), ids)
    except ValueError as exc:
        raise Rejected(str(exc)) from exc
    return [Located(span, "exact", 100.0) for span in sorted(spans, key=lambda s: s.start)]


class ConditionPhrase(BaseModel):
    """Step 2, 'write': one condition sentence as a short search condition."""

    phrase: Phrase


class ConditionTerms(BaseModel):
    """Step 2, 'pick': the key terms of one condition sentence a searcher would type."""

    terms: list[str]


class DescriptiveQuery(BaseModel):
    """Step 2, descriptive style: one natural-language query covering every condition."""

    query: str

    @field_validator("query")
    @classmethod
    def _prose(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the query is empty")
        return value


class HardNegativeSentence(BaseModel):
    """Step 3, 'modify' strategy: the sentence with its key information changed."""

    sentence: Sentence


class KeywordHardNegative(BaseModel):
    """Step 3, 'keyword' strategy: key terms kept but attached to an irrelevant entity."""

    sentence: Sentence
    key_terms: list[Phrase]


@lru_cache(maxsize=1024)
def terms_model(terms: tuple[str, ...]) -> type[ConditionTerms]:
    """ConditionTerms whose items are an enum of the sentence's key terms (1..MAX_PICKED)."""
    return create_model(  # type: ignore[call-overload, no-any-return]
        "ConditionTerms", __base__=ConditionTerms,
        terms=(list[Literal[terms]],  # type: ignore[valid-type]
               Field(min_length=min(MIN_PICKED, len(terms)), max_length=MAX_PICKED)))


# -- checks ----------------------------------------------------------------------------------

_LIST_MARKER = re.compile(r"(?:^|\s)(?:\d+[.)]|[-*•])\s")
MIN_SHARED_WORDS = 0.2
#: a picked condition names MIN_PICKED..MAX_PICKED key terms of its sentence
MIN_PICKED = 2
MAX_PICKED = 4


def validate_conditions(sentences: Sequence[str], document: str, n: int,
                        threshold: float = 90.0) -> list[Located]:
    """Step 1: N distinct sentences, each found in the document (exact or fuzzy and snapped)."""
    if len(sentences) != n:
        raise Rejected(f"expected {n} condition sentences, got {len(sentences)}")
    doc_sentences = split_sentences(document)
    located: list[Located] = []
    for index, sentence in enumerate(sentences, start=1):
        if word_count(sentence) < MIN_WORDS:
            raise Rejected(f"condition {index} {sentence!r} is shorter than {MIN_WORDS} words")
        found = locate(sentence, document, threshold, doc_sentences)
        if found is None:
            raise Rejected(f"condition {index} {sentence!r} does not occur in the document "
                           f"(no exact match, no sentence run with similarity >= {threshold:g})")
        found = _with_referent(found, document, index)
        for earlier_index, earlier in enumerate(located, start=1):
            if _overlap(found.span, earlier.span) or \
                    normalize(found.span.text) == normalize(earlier.span.text):
                raise Rejected(f"condition {index} duplicates condition {earlier_index} "
                               f"({found.span.text!r})")
        located.append(found)
    return located


def _with_referent(found: Located, document: str, index: int) -> Located:
    """A condition that opens by pointing back ("They ...") joined to the sentences before it
    that name what it points to, or :class:`Rejected` when its paragraph does not."""
    span = resolved(found.span, document)
    if span is None:
        raise Rejected(f"condition {index} {found.span.text[:60]!r} opens with "
                       f"{opening_anaphor(found.span.text)!r}, whose referent is not in the "
                       "sentences before it in its paragraph: give a sentence that names what "
                       "it is about")
    return Located(span, found.match, found.score)


def _overlap(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def picked_phrase(sentence: str, terms: Sequence[str]) -> str:
    """Step 2, 'pick': the chosen key terms, each once, in the order the sentence has them."""
    chosen = list(dict.fromkeys(" ".join(term.split()) for term in terms if term.strip()))
    allowed = key_terms(sentence)
    foreign = [term for term in chosen if term not in allowed]
    if foreign:
        raise Rejected(f"terms {foreign} are not key terms of the sentence")
    if len(chosen) < min(MIN_PICKED, len(allowed)):
        raise Rejected(f"pick at least {min(MIN_PICKED, len(allowed))} distinct key terms")
    lowered = sentence.lower()
    return " ".join(sorted(chosen, key=lambda term: lowered.find(term.lower())))


def duplicate_phrases(phrases: Sequence[str]) -> list[str]:
    """Reasons when two conditions of one document read the same (q_k would repeat itself)."""
    seen: dict[str, int] = {}
    reasons = []
    for index, phrase in enumerate(phrases, start=1):
        first = seen.setdefault(normalize(phrase), index)
        if first != index:
            reasons.append(f"condition {index} repeats condition {first}: {phrase!r}")
    return reasons


def ungrounded_phrases(phrases: Sequence[str], sentences: Sequence[str]) -> list[str]:
    """Step 2: reasons for condition phrases sharing no content word with their sentence
    (an echoed schema name or a made-up phrase does not state that sentence's condition)."""
    pairs = enumerate(zip(phrases, sentences, strict=False), start=1)
    return [f"condition {index} {phrase!r} shares no content word with sentence {index}"
            for index, (phrase, sentence) in pairs
            if content_words(sentence) and not content_words(phrase) & content_words(sentence)]


def uncovered_conditions(query: str, sentences: Sequence[str]) -> list[str]:
    """Step 2: reasons for condition sentences the descriptive query shares no content word
    with (it must mention every condition)."""
    words = content_words(query)
    return [f"the query does not mention condition {index} (no word of {sentence!r})"
            for index, sentence in enumerate(sentences, start=1)
            if content_words(sentence) and not words & content_words(sentence)]


def domain_examples(domain: Domain) -> list[str]:
    """The worked examples a domain adds to the query prompts (the echo validator knows
    the templates' own; these join them)."""
    return [*domain.instruction_examples, *domain.descriptive_examples]


def render_instruction(instruction: str, conditions: Sequence[str]) -> str:
    """The instruction-style query text: the request, then a numbered list of conditions."""
    items = " ".join(f"{i}. {c.rstrip('.')}." for i, c in enumerate(conditions, start=1))
    return f"{instruction.strip()} {items}"


def validate_descriptive(query: str, k: int) -> str:
    """Step 2: a descriptive query is one piece of prose, not a list, long enough for k."""
    text = " ".join(query.split())
    if word_count(text) < max(MIN_WORDS, k):
        raise Rejected(f"descriptive query {text!r} is too short for {k} conditions")
    if len(_LIST_MARKER.findall(text)) >= 2:
        raise Rejected("descriptive query is written as a list; it must be natural prose")
    return text


def validate_hard_negative(original: str, sentence: str, strategy: str,
                           key_terms: Sequence[str] = ()) -> tuple[str, list[str]]:
    """Step 3: the hard negative differs from the original; 'keyword' keeps the key terms.

    Returns the cleaned sentence and the key terms that were checked (empty for 'modify').
    """
    text = " ".join(sentence.split())
    if word_count(text) < MIN_WORDS:
        raise Rejected(f"hard negative {text!r} is shorter than {MIN_WORDS} words")
    if normalize(text) == normalize(original):
        raise Rejected("hard negative is the original sentence unchanged")
    if normalize(original) in normalize(text):
        raise Rejected("hard negative still contains the whole original sentence")
    words = content_words(original)
    if words and len(words & content_words(text)) / len(words) < MIN_SHARED_WORDS:
        raise Rejected(f"hard negative shares under {MIN_SHARED_WORDS:.0%} of the original's "
                       "words; it must rewrite that sentence, not replace it")
    if strategy != "keyword":
        return text, []
    declared = [" ".join(term.split()) for term in key_terms if term.strip()]
    foreign = [term for term in declared if not contains_term(original, term)]
    if foreign:
        raise Rejected(f"key terms {foreign} do not occur in the original sentence")
    required = list(dict.fromkeys([*declared, *salient_terms(original)]))
    if not required:
        raise Rejected("keyword strategy needs at least one key term from the original sentence")
    lost = [term for term in required if not contains_term(text, term)]
    if lost:
        raise Rejected(f"keyword strategy must keep the key terms; missing {lost}")
    return text, required


# -- the steps -------------------------------------------------------------------------------

def conditions_step(domain: Domain, n: int) -> Step[Doc, list[Located]]:
    """Step 1: the ids of N condition sentences among the document's numbered sentences.

    The output schema enumerates the valid ids, so constrained decoding can only pick real
    sentences; repeated ids are rejected (and re-sampled by best-of-n).
    """
    return Step(
        name=f"{STEP}.conditions", template="multicon.conditions",
        output_model=lambda doc: choice_model(len(candidate_sentences(doc.text)), n),
        variables=lambda doc: {"domain": domain.name, "entity": domain.entity,
                               "features": shown_features(domain, doc.text), "n": n,
                               "context": doc_context(doc),
                               "sentences": numbered([s.text for s in
                                                      candidate_sentences(doc.text)])},
        item_id=lambda doc: doc.doc_id,
        accept=lambda doc, value: chosen_conditions(doc.text, value.ids, n),
        metadata=lambda doc: {"source_doc": doc.doc_id})


@dataclass(frozen=True)
class PhraseItem:
    """Step 2 input: condition sentence ``index`` of one source document (id ``<doc>:p<i>``)."""

    key: str
    source: str
    index: int
    sentence: str


@dataclass(frozen=True)
class QueryItem:
    """Step 2 input: the first k conditions (sentences and phrases) of one source document."""

    key: str
    source: str
    k: int
    sentences: tuple[str, ...]
    title: str = ""
    text: str = ""
    phrases: tuple[str, ...] = ()


def _source(item: QueryItem) -> tuple[str, str]:
    return item.title, item.text


PHRASE_MODES = ("write", "pick")
PHRASE_TEMPLATES = {"write": "multicon.condition_phrase", "pick": "multicon.condition_terms"}


def condition_phrase_step(domain: Domain, mode: str = "write") -> Step[PhraseItem, str]:
    """Step 2: one condition sentence as a short search condition.

    ``write``: the model writes it (checked for length, grounding and echoed examples);
    ``pick``: the model picks key terms of the sentence from an enum (verbatim by
    construction, for small models) and code lists them in the sentence's order.
    """
    if mode not in PHRASE_MODES:
        raise ValueError(f"unknown phrase mode {mode!r}; use one of {PHRASE_MODES}")
    template = PHRASE_TEMPLATES[mode]
    common: dict[str, Any] = {
        "name": f"{STEP}.condition_phrase", "template": template,
        "variables": lambda item: {"entity": domain.entity, "sentence": item.sentence,
                                   **({"terms": list(key_terms(item.sentence))} if mode == "pick"
                                      else {"examples": list(domain.instruction_examples),
                                            **PHRASE_WORDS})},
        "item_id": lambda item: item.key,
        "metadata": lambda item: {"source_doc": item.source, "condition": item.index}}
    if mode == "pick":
        return Step(output_model=lambda item: terms_model(key_terms(item.sentence)),
                    accept=lambda item, value: picked_phrase(item.sentence, value.terms),
                    **common)
    echo = echo_check(domain_examples(domain), "condition phrase")  # the registry's rule
    return Step(
        output_model=ConditionPhrase,
        validators=(lambda item, value: ungrounded_phrases([value.phrase], [item.sentence]),
                    lambda item, value: echo(value.phrase, item.sentence)),
        accept=lambda item, value: validate_phrase(value.phrase), **common)


def descriptive_query_step(domain: Domain) -> Step[QueryItem, str]:
    """Step 2, descriptive style: one prose query covering the first k conditions (echoed
    examples are the validator registry's, run by the gates: :func:`domain_examples`)."""
    return Step(
        queries_of=lambda item, text: [text], source_of=_source,
        query_metadata=lambda item, text: {"source_doc": item.source,
                                           "conditions": list(item.sentences)},
        name=f"{STEP}.descriptive_query", template="multicon.descriptive_query",
        output_model=DescriptiveQuery,
        variables=lambda item: {"entity": domain.entity, "k": item.k,
                                "sentences": list(item.phrases or item.sentences),
                                "examples": list(domain.descriptive_examples)},
        item_id=lambda item: item.key,
        validators=(lambda item, value: uncovered_conditions(value.query, item.sentences),),
        accept=lambda item, value: validate_descriptive(value.query, item.k),
        metadata=lambda item: {"source_doc": item.source})


HARD_NEGATIVE_TEMPLATES: dict[str, tuple[str, type]] = {
    "modify": ("multicon.hard_negative_modify", HardNegativeSentence),
    "keyword": ("multicon.hard_negative_keyword", KeywordHardNegative),
}


@dataclass(frozen=True)
class HardNegativeItem:
    """Step 3 input: one condition sentence and the query phrase that asks for it."""

    key: str
    source: str
    query: str
    sentence: str


# -- the 'substitute' strategy: 'modify' by construction ----------------------------------------

SUBSTITUTE_TEMPLATE = "multicon.hard_negative_substitute"
MAX_REPLACEMENT_WORDS = 6


class Substitution(BaseModel):
    """Step 3, 'substitute' strategy: one key term of the sentence and what replaces it."""

    term: str
    replacement: str


@lru_cache(maxsize=1024)
def substitution_model(terms: tuple[str, ...]) -> type[Substitution]:
    """Substitution whose ``term`` is an enum of the sentence's key terms."""
    return create_model(  # type: ignore[call-overload, no-any-return]
        "Substitution", __base__=Substitution, term=(Literal[terms], ...))  # type: ignore[valid-type]


def substituted(sentence: str, term: str, replacement: str, examples: str = "",
                source: str = "") -> str:
    """The sentence with ``term`` replaced by a value of the same kind (a number for a
    number, a name for a name), or :class:`Rejected`; a replacement taken from the prompt's
    ``examples`` (and absent from the ``source`` document) is an echo, not a new fact."""
    new = " ".join(replacement.split()).strip(" .,;:\"'")
    if not new:
        raise Rejected("the replacement is empty")
    if normalize(term) in normalize(new):
        raise Rejected(f"the replacement {new!r} keeps the term {term!r}")
    if any(ch.isdigit() for ch in term) and not any(ch.isdigit() for ch in new):
        raise Rejected(f"the number {term!r} must be replaced by a number, not {new!r}")
    if term[:1].isupper() and not any(ch.isdigit() for ch in term) and not new[:1].isupper():
        raise Rejected(f"the name {term!r} must be replaced by a name, not {new!r}")
    if examples and contains_term(examples, new) and not contains_term(source, new):
        raise Rejected(f"the replacement {new!r} repeats the prompt's example")
    if word_count(new) > MAX_REPLACEMENT_WORDS:
        raise Rejected(f"the replacement {new!r} is longer than {MAX_REPLACEMENT_WORDS} words")
    if not contains_term(sentence, term):
        raise Rejected(f"the term {term!r} does not occur in the sentence")
    return re.sub(rf"(?<!\w){re.escape(term)}(?!\w)", lambda _: new, sentence, count=1,
                  flags=re.IGNORECASE)


def hard_negative_metadata(item: HardNegativeItem) -> dict[str, str]:
    """What a reviewer of a hard negative needs (Label Studio job ``hard_negative``): the
    condition it must no longer satisfy and the sentence it rewrote."""
    return {"source_doc": item.source, "condition": item.query, "original": item.sentence}


def substitute_step(domain: Domain) -> Step[HardNegativeItem, str]:
    """Step 3, 'substitute': the model picks a key term (an enum of the terms the query's
    condition names) and its replacement; code rewrites the sentence, so the hard negative is
    the original with the asked-for fact changed."""
    from irforge.prompts import get_template

    examples = get_template(SUBSTITUTE_TEMPLATE).user
    return Step(
        name=f"{STEP}.hard_negative", template=SUBSTITUTE_TEMPLATE,
        output_model=lambda item: substitution_model(asked_terms(item.sentence, item.query)),
        variables=lambda item: {"query": item.query, "sentence": item.sentence,
                                "terms": list(asked_terms(item.sentence, item.query))},
        item_id=lambda item: item.key,
        accept=lambda item, value: validate_hard_negative(
            item.sentence, substituted(item.sentence, value.term, value.replacement, examples,
                                       item.sentence), "modify")[0],
        metadata=hard_negative_metadata)


def hard_negative_step(domain: Domain, strategy: str) -> Step[HardNegativeItem, str]:
    """Step 3: the condition sentence rewritten so it no longer satisfies the condition."""
    if strategy == "substitute":
        return substitute_step(domain)
    template, model = HARD_NEGATIVE_TEMPLATES[strategy]
    examples = [example.model_dump() for example in domain.hard_negative_examples]

    def accept(item: HardNegativeItem, value: Any) -> str:
        return validate_hard_negative(item.sentence, value.sentence, strategy,
                                      getattr(value, "key_terms", ()))[0]

    return Step(
        name=f"{STEP}.hard_negative", template=template, output_model=model,
        variables=lambda item: {"query": item.query, "sentence": item.sentence,
                                "examples": examples},
        item_id=lambda item: item.key, accept=accept,
        metadata=hard_negative_metadata)
