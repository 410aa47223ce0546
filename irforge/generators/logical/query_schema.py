"""What ComLQ's query step asks the LLM to fill: the output models, and for each item a schema
that enumerates the allowed choices (evidence quotes are sentences of the given passages, the
answer of a type without union is a name or number that occurs in them, the triple groups have
the type's sizes), so constrained decoders are verbatim by construction. The post-hoc checks
of the answers are in steps.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from irforge.core.digest import short_digest
from irforge.corpus.entities import entity_choices
from irforge.corpus.sentences import sentence_spans
from irforge.generators.logical.structure import GROUP_MARKS, MAX_GROUP, Triple, TripleGroups
from irforge.generators.logical.types import QueryType, get_type

EVIDENCE_CHARS = 300  # the longest evidence quote
MAX_EVIDENCE = 4  # the most evidence quotes of any query
MAX_EXCLUDED = 2  # the most entities a negation query names as ruled out


class Evidence(BaseModel):
    """A sentence copied from one of the given passages that supports part of the query."""

    passage: int = Field(ge=1, le=3, description="1-based number of the quoted passage")
    text: str = Field(max_length=EVIDENCE_CHARS,
                      description="a sentence copied from that passage")


class LogicalQueryOutput(BaseModel):
    """What the generator asks the LLM for: the query, its answer, triples and evidence."""

    query: str = Field(max_length=300, description="the natural-language question")
    answer: str = Field(max_length=150, description="the answer entity or entities")
    triples: TripleGroups
    evidence: list[Evidence] = Field(default_factory=list, max_length=MAX_EVIDENCE)


class Excluded(BaseModel):
    """An entity of the passages that the query's other constraints admit and its negated
    triple rules out, with a sentence showing each half (a negation must exclude something)."""

    entity: str = Field(max_length=150, description="the entity the negation rules out")
    meets: Evidence = Field(description="a sentence showing the entity meets the query's "
                                        "must-hold constraints")
    ruled_out: Evidence = Field(description="a sentence stating the negated fact of the entity")


class NegationQueryOutput(LogicalQueryOutput):
    """A capable model's negation query: also what its negation rules out (checked against
    the passages afterwards, steps.py ``exclusion_problems``)."""

    excluded: list[Excluded] = Field(default_factory=list, max_length=MAX_EXCLUDED)


@dataclass(frozen=True)
class Demonstration:
    """A passage and the query the generator should produce from it (demos.py holds them);
    a negation type's also names what its negation rules out (shown to a capable model)."""

    passage: str
    output: LogicalQueryOutput
    excluded: tuple[Excluded, ...] = ()


MAX_ANSWER_CHOICES = 60


def passage_sentences(text: str) -> tuple[str, ...]:
    """The sentences of a passage, as an evidence quote may copy them (the corpus's sentence
    boundaries: an abbreviation such as "St." or "e.g." ends none)."""
    return tuple(text[start:end] for start, end in sentence_spans(text))


def answer_choices(passages: Sequence[str]) -> tuple[str, ...]:
    """Names, quantities and numbers of the passages, in order, extracted whole
    (:mod:`irforge.corpus.entities`): what a single-entity answer may be."""
    return entity_choices(passages, grammar_safe, MAX_ANSWER_CHOICES)


def grammar_safe(text: str) -> bool:
    """Whether an enum value survives llama.cpp's schema-to-grammar conversion: a double
    quote, a backslash or a control character inside a literal breaks its grammar parser."""
    return bool(text) and not any(ch in '"\\' or ord(ch) < 32 for ch in text)


def _choice(values: Sequence[str]) -> dict[str, Any]:
    """An enum of the grammar-safe values, or free text when none is safe (those values are
    then left to the post-hoc checks)."""
    safe = [value for value in values if grammar_safe(value)]
    return {"enum": safe} if safe else {"type": "string"}


def evidence_pieces(text: str, limit: int = EVIDENCE_CHARS) -> tuple[str, ...]:
    """The quotes evidence may copy from a passage: its sentences, a sentence longer than
    ``limit`` cut at clause marks (``;`` ``:`` ``,``), then at spaces, into verbatim pieces
    that fit (an unsplit passage longer than the limit would be a choice no answer can
    take)."""
    out: list[str] = []
    for sentence in passage_sentences(text):
        out.extend(_fit(sentence, limit))
    return tuple(dict.fromkeys(piece for piece in out if piece))


def _fit(text: str, limit: int) -> list[str]:
    if len(text) <= limit:
        return [text]
    for mark in ("; ", ": ", ", ", " "):
        parts = text.split(mark)
        if len(parts) == 1:
            continue
        pieces, current = [], parts[0]
        for part in parts[1:]:
            joined = f"{current}{mark}{part}"
            if len(joined) <= limit:
                current = joined
            else:
                pieces.append(current)
                current = part
        pieces.append(current)
        return [fitted for piece in pieces for fitted in _fit(piece.strip(" ;:,"), limit)]
    return [text[:limit]]  # one word longer than the limit (a URL, say)


def _evidence_schema(passages: Sequence[str]) -> dict[str, Any]:
    """Evidence items as one choice per passage: its number and one of its quotable pieces."""
    return {"anyOf": [{"type": "object", "properties": {
        "passage": {"const": number}, "text": _choice(evidence_pieces(text))},
        "required": ["passage", "text"]} for number, text in enumerate(passages, start=1)]}


def _open_evidence_schema(count: int) -> dict[str, Any]:
    """Evidence items as free quotes (checked afterwards against their passage)."""
    return {"type": "object", "required": ["passage", "text"], "properties": {
        "passage": {"type": "integer", "minimum": 1, "maximum": count},
        "text": {"type": "string", "maxLength": EVIDENCE_CHARS}}}


def _all_required(schema: dict[str, Any]) -> None:
    """Every property required in the schema, so constrained decoders write each one (an
    omitted evidence list is the commonest small-model miss); validation keeps the defaults."""
    schema["required"] = list(schema.get("properties", {}))
    schema.pop("description", None)


class _QuerySchema(LogicalQueryOutput):
    model_config = ConfigDict(json_schema_extra=_all_required)


class _NegationQuerySchema(NegationQueryOutput):
    model_config = ConfigDict(json_schema_extra=_all_required)


class _GroupsSchema(TripleGroups):
    model_config = ConfigDict(json_schema_extra=_all_required)


def _group_sizes(qtype: QueryType) -> dict[str, tuple[int, int]]:
    """(min, max) triples per group: union and negation exactly as the shape; must-hold
    triples all in projection (types without intersection), all in intersection (types
    without projection), or spread over both."""
    counts = {mark: sum(edge.mark == mark for edge in qtype.pattern) for mark in "+|-"}
    plus = counts["+"]
    home = ("projection" if "i" not in qtype.name else
            "intersection" if "p" not in qtype.name else None)
    sizes = {}
    for name, mark in GROUP_MARKS:
        if mark != "+":
            sizes[name] = (counts[mark], counts[mark])
        elif home is None:
            sizes[name] = (0, plus)
        else:
            sizes[name] = (plus, plus) if name == home else (0, 0)
    return sizes


def _triple_schema(names: Sequence[str], variables: Sequence[str]) -> dict[str, Any]:
    """A triple whose terms are names from the passages or the type's variables, with at
    least one variable (a triple between two constants is no query edge)."""
    name: dict[str, Any] = {"enum": list(names)} if names else {"type": "string"}
    var: dict[str, Any] = {"enum": list(variables)}

    def shape(subject: dict[str, Any], obj: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "required": ["subject", "relation", "object"],
                "properties": {"subject": subject, "relation": {"type": "string"},
                               "object": obj}}

    return {"anyOf": [shape(name, var), shape(var, name), shape(var, var)]}


@lru_cache(maxsize=128)
def groups_model(type_name: str, names: tuple[str, ...] = ()) -> type[TripleGroups]:
    """TripleGroups whose schema asks for the group sizes of ``type_name`` and triples over
    ``names`` and the type's variables (``?v1``, ``?t``)."""
    qtype = get_type(type_name)
    triple = _triple_schema(names, [f"?{v}" for v in qtype.variables])
    fields: dict[str, Any] = {
        name: (list[Triple], Field(default_factory=list, max_length=MAX_GROUP,
                                   json_schema_extra={"items": triple, "minItems": low,
                                                      "maxItems": high} if high else
                                   {"maxItems": 0}))
        for name, (low, high) in _group_sizes(qtype).items()}
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"TripleGroups_{type_name}_{short_digest(names)}", __base__=_GroupsSchema,
        **fields)


@lru_cache(maxsize=256)
def query_model(type_name: str, passages: tuple[str, ...],
                titles: tuple[str, ...] = ()) -> type[LogicalQueryOutput]:
    """LogicalQueryOutput whose schema enumerates, for one item, the evidence sentences, the
    answer names (types without union), the triple terms and the group sizes. Validation
    is that of LogicalQueryOutput: only the schema shown to the decoder changes."""
    qtype = get_type(type_name)
    choices = answer_choices(passages)
    answer_extra = {"enum": list(choices)} if choices and not qtype.has_union else None
    names = tuple(dict.fromkeys((*answer_choices(titles), *choices)))
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"LogicalQuery_{type_name}_{short_digest((passages, titles))}",
        __base__=_QuerySchema,
        answer=(str, Field(max_length=150, description="the answer entity or entities",
                           json_schema_extra=answer_extra)),
        triples=(groups_model(type_name, names), ...),
        evidence=_evidence_field(type_name, len(passages), _evidence_schema(passages)))


@lru_cache(maxsize=64)
def open_query_model(type_name: str, passage_count: int) -> type[LogicalQueryOutput]:
    """The capable profile's LogicalQueryOutput: the type's group sizes and variables, but
    subject, object, answer and evidence are free strings that the checks below hold to
    the passages afterwards (an enum of extracted names can hold one name, and then only
    degenerate triples fit). A negation type also asks for 1 to MAX_EXCLUDED entities its
    negation rules out (:class:`NegationQueryOutput`)."""
    extra: dict[str, Any] = {}
    if get_type(type_name).has_negation:
        quote = _open_evidence_schema(passage_count)
        item = {"type": "object", "required": ["entity", "meets", "ruled_out"],
                "properties": {"entity": {"type": "string", "maxLength": 150},
                               "meets": quote, "ruled_out": quote}}
        extra["excluded"] = (list[Excluded], Field(
            default_factory=list, max_length=MAX_EXCLUDED,
            json_schema_extra={"items": item, "minItems": 1, "maxItems": MAX_EXCLUDED}))
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"OpenLogicalQuery_{type_name}_{passage_count}",
        __base__=_NegationQuerySchema if extra else _QuerySchema,
        triples=(groups_model(type_name, ()), ...),
        evidence=_evidence_field(type_name, passage_count, _open_evidence_schema(passage_count)),
        **extra)


def evidence_bounds(type_name: str, passage_count: int) -> tuple[int, int]:
    """How many evidence quotes a query gives: at least one per passage, at most one per
    triple of its type (up to MAX_EVIDENCE), never fewer than the passages. The one
    declaration the output schema enforces and the query prompt states."""
    edges = get_type(type_name).edge_count
    return passage_count, max(passage_count, min(MAX_EVIDENCE, edges))


def _evidence_field(type_name: str, passage_count: int, items: dict[str, Any]) -> Any:
    low, high = evidence_bounds(type_name, passage_count)
    return (list[Evidence], Field(default_factory=list, max_length=MAX_EVIDENCE,
                                  json_schema_extra={"items": items, "minItems": low,
                                                     "maxItems": high}))
