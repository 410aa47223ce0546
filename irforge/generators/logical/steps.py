"""ComLQ's LLM steps (Data Synthesis, Expert Verification), each read top to bottom here:
the output model the LLM fills, the plain-code checks of that output, and the :class:`Step`
that ties them to its prompt template.

Steps: ``query`` (a query of one type from one to three passages, with its answer, the
triples of its query graph and evidence quotes), ``judge`` (optional: an LLM scores structure
conformity 1-4) and ``hypothetical`` (optional: a plausible passage that violates the query,
HyDE-style). Where the query step selects from its input, the schema enumerates the allowed
choices per item: evidence quotes are sentences of the given passages (one enum per passage
number), the answer of a type without union is a name or number that occurs in them, and the
triple groups have the type's sizes. Constrained decoders (llama.cpp, vLLM, strict structured
outputs) are then verbatim by construction; validation stays post hoc, so answers from other
backends get the same checks. A check returns the reasons it rejects (empty: accepted).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from irforge.core.digest import short_digest
from irforge.core.records import Doc, Query
from irforge.corpus.entities import entity_choices
from irforge.generators.logical.fol import negated_block, render_fol
from irforge.generators.logical.selection import QueryPlan
from irforge.generators.logical.structure import (
    GROUP_MARKS,
    MAX_GROUP,
    StructureCheck,
    Triple,
    TripleGroups,
    check_structure,
    is_variable,
)
from irforge.generators.logical.types import QueryType, get_type
from irforge.prompts.context import doc_context
from irforge.steps import Rejected, Step

QUERY_STEP = "logical.query"
JUDGE_STEP = "logical.judge"
HYPOTHETICAL_STEP = "logical.hypothetical"


# -- step: query ---------------------------------------------------------------------------------

EVIDENCE_CHARS = 300  # the longest evidence quote


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
    evidence: list[Evidence] = Field(default_factory=list, max_length=4)


@dataclass(frozen=True)
class Demonstration:
    """A passage and the query the generator should produce from it (demos.py holds them)."""

    passage: str
    output: LogicalQueryOutput


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
MAX_ANSWER_CHOICES = 60


def passage_sentences(text: str) -> tuple[str, ...]:
    """The sentences of a passage, as an evidence quote may copy them."""
    return tuple(part.strip() for part in _SENTENCE_END.split(text.strip()) if part.strip())


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
        evidence=(list[Evidence], Field(default_factory=list, max_length=4, json_schema_extra={
            "items": _evidence_schema(passages), "minItems": len(passages),
            "maxItems": max(len(passages), min(4, qtype.edge_count))})))


@lru_cache(maxsize=64)
def open_query_model(type_name: str, passage_count: int) -> type[LogicalQueryOutput]:
    """The capable profile's LogicalQueryOutput: the type's group sizes and variables, but
    subject, object, answer and evidence are free strings that the checks below hold to
    the passages afterwards (an enum of extracted names can hold one name, and then only
    degenerate triples fit)."""
    qtype = get_type(type_name)
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"OpenLogicalQuery_{type_name}_{passage_count}", __base__=_QuerySchema,
        triples=(groups_model(type_name, ()), ...),
        evidence=(list[Evidence], Field(default_factory=list, max_length=4, json_schema_extra={
            "items": _open_evidence_schema(passage_count), "minItems": passage_count,
            "maxItems": max(passage_count, min(4, qtype.edge_count))})))


# Evidence and answers are grounded in the passages: a quote counts as found when at least
# MIN_COVERAGE of its words occur in the passage (tolerant of small copying edits, strict
# enough to reject invented sentences); an answer must occur whole.
MIN_COVERAGE = 0.8


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def quote_found(quote: str, passage: str, min_coverage: float = MIN_COVERAGE) -> bool:
    """True when enough of the quote's words appear in the passage."""
    words = tokens(quote)
    if not words:
        return False
    present = set(tokens(passage))
    return sum(word in present for word in words) / len(words) >= min_coverage


def answer_parts(answer: str) -> list[str]:
    """'A, B and C' -> ['A', 'B', 'C']: the entities of a (possibly multi-entity) answer."""
    parts = re.split(r",|;|\band\b|\bor\b", answer)
    return [part.strip() for part in parts if part.strip()]


def evidence_problems(output: LogicalQueryOutput, passages: Sequence[str]) -> list[str]:
    """Reasons the evidence is missing, invented, or not spread over every passage."""
    problems: list[str] = []
    if not output.evidence:
        return ["no supporting evidence given"]
    supported: set[int] = set()
    for item in output.evidence:
        if item.passage > len(passages):
            problems.append(f"evidence cites passage {item.passage} but only {len(passages)} "
                            "passage(s) were given")
        elif not quote_found(item.text, passages[item.passage - 1]):
            problems.append(f"evidence {item.text[:80]!r} is not found in passage {item.passage}")
        else:
            supported.add(item.passage)
    missing = [number for number in range(1, len(passages) + 1) if number not in supported]
    if len(passages) > 1 and missing:
        problems.append("evidence is not distributed: passage(s) "
                        f"{', '.join(map(str, missing))} carry none of it (every passage of a "
                        "multi-passage query must carry part of the evidence)")
    elif not supported and not problems:
        problems.append("no evidence quote is found in the passage")
    return problems


def answer_problems(output: LogicalQueryOutput, passages: Sequence[str]) -> list[str]:
    """Reasons the answer is empty, absent from the passages, or given away by the query."""
    parts = answer_parts(output.answer)
    if not parts:
        return ["the answer is empty"]
    if not output.query.strip():
        return ["the query is empty"]
    joined = "\n".join(passages)
    problems = [f"answer {part!r} does not appear in the passages" for part in parts
                if not quote_found(part, joined, min_coverage=1.0)]
    query_words = set(tokens(output.query))
    leaked = [part for part in parts if tokens(part) and set(tokens(part)) <= query_words]
    if leaked and len(leaked) == len(parts):
        problems.append(f"the query gives away its answer ({', '.join(leaked)})")
    return problems


def query_problems(qtype: QueryType, output: LogicalQueryOutput,
                   passages: Sequence[str]) -> tuple[StructureCheck, list[str]]:
    """The structure verdict and every reason to reject (``structure:``, ``evidence:``,
    ``answer:``), in that order."""
    check = check_structure(output.triples, qtype)
    problems = [f"structure: {reason}" for reason in check.reasons]
    problems += [f"evidence: {reason}" for reason in evidence_problems(output, passages)]
    problems += [f"answer: {reason}" for reason in answer_problems(output, passages)]
    return check, problems


@dataclass(frozen=True)
class QueryItem:
    """Query-step input: a plan, its passages in order, and the type's demonstration."""

    plan: QueryPlan
    passages: tuple[Doc, ...]
    demo: Demonstration

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(doc.text for doc in self.passages)


@dataclass(frozen=True)
class AcceptedQuery:
    """A generated query that passed every check, with what the output files need."""

    plan: QueryPlan
    output: LogicalQueryOutput
    check: StructureCheck
    model: str = ""
    demo_grade: bool = False
    # what the validators recorded when the gates passed the query ({"target": {...}})
    notes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def fol(self) -> str:
        return render_fol(self.check.edges, self.check.target or "")

    @property
    def negated(self) -> list[dict[str, str]]:
        """The triples of the negated branch (empty for types without negation)."""
        if not get_type(self.plan.qtype).has_negation:
            return []
        block = negated_block(self.check.edges, self.check.target or "")
        return [edge.triple.model_dump() for edge in block]

    def to_query(self, judge_score: int | None = None) -> Query:
        metadata: dict[str, Any] = {
            "type": self.plan.qtype, "answer": self.output.answer,
            "triples": self.output.triples.model_dump(), "fol": self.fol,
            "answer_variable": self.check.target,
            "evidence": [{**item.model_dump(), "doc_id": self.plan.doc_ids[item.passage - 1]}
                         for item in self.output.evidence],
            "source_doc_ids": list(self.plan.doc_ids), "group": self.plan.group,
            "passages": len(self.plan.doc_ids), "model": self.model,
            "demo_grade": self.demo_grade, **self.notes}
        if judge_score is not None:
            metadata["judge_score"] = judge_score
        return Query(self.plan.query_id, self.output.query, metadata)


def demo_variables(type_name: str, demo: Demonstration) -> dict[str, Any]:
    """The type's part of ``logical.query``'s variables: definition, indicator and the worked
    example, written with every key the output schema requires (empty groups included: an
    example without them teaches the model an answer the schema refuses)."""
    qtype = get_type(type_name)
    return {"type_name": qtype.name, "definition": qtype.definition, "idea": qtype.idea,
            "indicator": qtype.indicator(), "demo_passage": demo.passage,
            "demo_output": json.dumps(demo.output.model_dump(mode="json"),
                                      ensure_ascii=False)}


def query_variables(item: QueryItem) -> dict[str, Any]:
    """Template variables of ``logical.query`` for one item."""
    passages = [{"number": number, "context": doc_context(doc), "text": doc.text}
                for number, doc in enumerate(item.passages, start=1)]
    return {**demo_variables(item.plan.qtype, item.demo), "passages": passages,
            "passage_count": len(passages)}


def query_reasons(item: QueryItem, output: LogicalQueryOutput) -> list[str]:
    """Why a query answer is rejected: structure, evidence and answer checks."""
    return query_problems(get_type(item.plan.qtype), output, item.texts)[1]


def accept_query(item: QueryItem, output: LogicalQueryOutput) -> AcceptedQuery:
    """The accepted query with its checked structure (model and grade are filled in later)."""
    check, problems = query_problems(get_type(item.plan.qtype), output, item.texts)
    if problems:
        raise Rejected("; ".join(problems))
    return AcceptedQuery(item.plan, output, check)


def query_step(open_fields: bool = False) -> Step[QueryItem, AcceptedQuery]:
    """One query of the plan's type from its passages, with triples, answer and evidence.
    ``open_fields`` (a capable model, llm/profile.py): free subject, object, answer and
    evidence strings, checked afterwards; else enums of the passages' names and sentences."""

    def model(item: QueryItem) -> type[LogicalQueryOutput]:
        if open_fields:
            return open_query_model(item.plan.qtype, len(item.passages))
        return query_model(item.plan.qtype, item.texts, tuple(d.title for d in item.passages))

    return Step(
        name=QUERY_STEP, template="logical.query",
        output_model=model,
        variables=query_variables, item_id=lambda item: item.plan.query_id,
        validators=(query_reasons,), accept=accept_query,
        metadata=lambda item: {"type": item.plan.qtype, "doc_ids": list(item.plan.doc_ids),
                               "source_doc": item.plan.doc_ids[0]},
        queries_of=lambda item, accepted: [accepted.output.query],
        query_metadata=query_metadata,
        source_of=lambda item: (item.passages[0].title,
                                "\n".join(doc.text for doc in item.passages)))


def query_metadata(item: QueryItem, accepted: AcceptedQuery) -> dict[str, Any]:
    """What the validators read of a logical query: answer, evidence, its passages."""
    ids = list(item.plan.doc_ids)
    evidence = [{**e.model_dump(), "doc_id": ids[e.passage - 1]}
                for e in accepted.output.evidence if 1 <= e.passage <= len(ids)]
    return {"answer": accepted.output.answer, "evidence": evidence, "source_doc_ids": ids}


def with_provenance(accepted: AcceptedQuery, model: str | None, demo_grade: bool,
                    notes: Mapping[str, Any] | None = None) -> AcceptedQuery:
    """The accepted query with the model that wrote it and what the validators recorded
    when they passed it (its ``target`` ranks)."""
    return replace(accepted, model=model or "", demo_grade=demo_grade,
                   notes=dict(notes or {}))


# -- step: judge (optional) ------------------------------------------------------------------------

class StructureJudgment(BaseModel):
    """An LLM judge's structure-conformity score on ComLQ's 1-4 scale."""

    score: int = Field(ge=1, le=4, description="1: wrong structure ... 4: exactly the type")
    reason: str = Field(max_length=300, description="one sentence explaining the score")


def judge_variables(accepted: AcceptedQuery) -> dict[str, Any]:
    """Template variables of ``logical.judge``."""
    qtype = get_type(accepted.plan.qtype)
    triples = {k: v for k, v in accepted.output.triples.model_dump().items() if v}
    return {"type_name": qtype.name, "definition": qtype.definition,
            "indicator": qtype.indicator(), "query": accepted.output.query,
            "answer": accepted.output.answer, "triples": json.dumps(triples, ensure_ascii=False)}


def below_bar(judgment: StructureJudgment, min_score: int) -> str | None:
    """The rejection reason of a score under ``min_score``; None when it passes."""
    if judgment.score >= min_score:
        return None
    return f"judge scored structure {judgment.score} < {min_score}: {judgment.reason}"


def judge_step() -> Step[AcceptedQuery, StructureJudgment]:
    """The judge's 1-4 score of an accepted query. Every score is kept (one judgment per
    query-passage pair); the build rejects scores under the bar with :func:`below_bar`."""
    return Step(
        name=JUDGE_STEP, template="logical.judge", output_model=StructureJudgment,
        variables=judge_variables, item_id=lambda accepted: accepted.plan.query_id,
        metadata=lambda accepted: {"type": accepted.plan.qtype,
                                   "doc_ids": list(accepted.plan.doc_ids)})


# -- step: hypothetical negative (optional) -------------------------------------------------------

class HypotheticalPassage(BaseModel):
    """A plausible but wrong passage written to look relevant (HyDE-style negative)."""

    title: str = Field(max_length=100)
    text: str = Field(max_length=1200)


MIN_HYPOTHETICAL_WORDS = 15


def hypothetical_variables(accepted: AcceptedQuery) -> dict[str, Any]:
    """Template variables of ``logical.hypothetical``."""
    negated = " and ".join(f"({t['subject']}, {t['relation']}, {t['object']})"
                           for t in accepted.negated)
    return {"query": accepted.output.query, "answer": accepted.output.answer,
            "type_name": accepted.plan.qtype, "negated": negated}


def hypothetical_reasons(accepted: AcceptedQuery, passage: HypotheticalPassage) -> list[str]:
    """Too short, names the answer, or (negation queries) never mentions the entity of the
    negated branch it should violate."""
    problems = []
    if len(tokens(passage.text)) < MIN_HYPOTHETICAL_WORDS:
        problems.append(f"passage has fewer than {MIN_HYPOTHETICAL_WORDS} words")
    named = [part for part in answer_parts(accepted.output.answer)
             if quote_found(part, passage.text, min_coverage=1.0)]
    if named:
        problems.append(f"passage names the answer ({', '.join(named)})")
    anchors = sorted({term for t in accepted.negated for term in (t["subject"], t["object"])
                      if not is_variable(term)})
    if anchors and not any(quote_found(a, passage.text, min_coverage=1.0) for a in anchors):
        problems.append(f"passage never mentions the negated branch's {', '.join(anchors)}")
    return problems


def hypothetical_doc(accepted: AcceptedQuery, passage: HypotheticalPassage) -> Doc:
    """The synthetic negative passage as a corpus document."""
    qid = accepted.plan.query_id
    return Doc(f"{qid}-hyp", passage.text.strip(), passage.title.strip(),
               {"synthetic": "hypothetical", "query_id": qid,
                "violates_negation": bool(accepted.negated)})


def hypothetical_step() -> Step[AcceptedQuery, Doc]:
    """A passage about a different entity that looks relevant but violates the query."""
    return Step(
        name=HYPOTHETICAL_STEP, template="logical.hypothetical",
        output_model=HypotheticalPassage, variables=hypothetical_variables,
        item_id=lambda accepted: accepted.plan.query_id, validators=(hypothetical_reasons,),
        accept=hypothetical_doc,
        metadata=lambda accepted: {"type": accepted.plan.qtype,
                                   "source_doc": f"{accepted.plan.query_id}-hyp"})
