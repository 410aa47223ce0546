"""ComLQ's LLM steps (Data Synthesis, Expert Verification), each read top to bottom here:
the output model the LLM fills, the plain-code checks of that output, and the :class:`Step`
that ties them to its prompt template.

Steps: ``query`` (a query of one type from one to three passages, with its answer, the
triples of its query graph and evidence quotes), ``judge`` (optional: an LLM scores structure
conformity 1-4) and ``hypothetical`` (optional: a plausible passage that violates the query,
HyDE-style). Where the query step selects from its input, the schema enumerates the allowed
choices per item (query_schema.py: the output models and those per-item schemas), so
constrained decoders (llama.cpp, vLLM, strict structured outputs) are verbatim by
construction; validation stays post hoc, so answers from other backends get the same checks.
A check returns the reasons it rejects (empty: accepted).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from pydantic import BaseModel, Field

from irforge.check.aliases import Aliases
from irforge.check.answer_grounding import answer_problem, vacuous
from irforge.check.text import content_words, stem
from irforge.core.records import Doc, Query
from irforge.generators.logical.fol import negated_block, render_fol
from irforge.generators.logical.query_schema import (
    Demonstration,
    Evidence,
    Excluded,
    LogicalQueryOutput,
    evidence_bounds,
    open_query_model,
    query_model,
)
from irforge.generators.logical.selection import QueryPlan
from irforge.generators.logical.structure import (
    QueryEdge,
    StructureCheck,
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

# Evidence and answers are grounded in the passages: a quote counts as found when at least
# MIN_COVERAGE of its words occur in the passage (tolerant of small copying edits, strict
# enough to reject invented sentences). A small model's answer must occur whole; a capable
# model's is grounded as ``grounding.answer`` grounds it (irforge.check.answer_grounding:
# every number and content word in the passages by form, every name in the evidence).
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


def quote_problem(label: str, quote: Evidence, passages: Sequence[str]) -> str | None:
    """Why a quote (``label`` names it) is not in the passage it cites; None when it is."""
    if not 1 <= quote.passage <= len(passages):
        return (f"{label} cites passage {quote.passage} but only {len(passages)} "
                "passage(s) were given")
    if not quote_found(quote.text, passages[quote.passage - 1]):
        return f"{label} {quote.text[:80]!r} is not found in passage {quote.passage}"
    return None


def evidence_problems(output: LogicalQueryOutput, passages: Sequence[str]) -> list[str]:
    """Reasons the evidence is missing, invented, or not spread over every passage."""
    problems: list[str] = []
    if not output.evidence:
        return ["no supporting evidence given"]
    supported: set[int] = set()
    for item in output.evidence:
        if problem := quote_problem("evidence", item, passages):
            problems.append(problem)
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


def answer_problems(output: LogicalQueryOutput, passages: Sequence[str],
                    own_wording: bool = False) -> list[str]:
    """Reasons the answer is empty, says nothing, is absent from the passages, or is given
    away by the query. ``own_wording`` (a capable model): the answer's words may be
    inflected and reordered (:func:`answer_problem`); else each part occurs whole."""
    parts = answer_parts(output.answer)
    if not parts:
        return ["the answer is empty"]
    if not output.query.strip():
        return ["the query is empty"]
    if vacuous(output.answer):
        return [f"the answer {output.answer!r} says nothing: name the thing, number or "
                "value the passages give"]
    joined = "\n".join(passages)
    if own_wording:
        problem = answer_problem(output.answer, passages, Aliases(),
                                 quoted=[item.text for item in output.evidence])
        problems = [f"answer {output.answer!r}: {problem}"] if problem else []
    else:
        problems = [f"answer {part!r} does not appear in the passages" for part in parts
                    if not quote_found(part, joined, min_coverage=1.0)]
    query_words = set(tokens(output.query))
    leaked = [part for part in parts if tokens(part) and set(tokens(part)) <= query_words]
    if leaked and len(leaked) == len(parts):
        problems.append(f"the query gives away its answer ({', '.join(leaked)})")
    return problems


def _same_thing(left: str, right: str) -> bool:
    """Whether two names are one (the words of one hold all the words of the other)."""
    a, b = set(tokens(left)), set(tokens(right))
    return bool(a and b) and (a <= b or b <= a)


def _stems(texts: Sequence[str]) -> set[str]:
    return {stem(word) for text in texts for word in content_words(text)}


def _terms(edges: Sequence[QueryEdge]) -> list[str]:
    """The constants and relations of some query triples (variables left out)."""
    return [term for edge in edges for term in
            (edge.triple.subject, edge.triple.relation, edge.triple.object)
            if not is_variable(term)]


def excluded_problems(item: Excluded, output: LogicalQueryOutput, passages: Sequence[str],
                      check: StructureCheck) -> list[str]:
    """Why one named ruled-out entity does not show the negation at work: it must be in
    both quoted sentences, which are in the passages; it is not the answer nor a constant of
    the negated triples; one sentence shares a word with the must-hold triples and the
    other with the negated ones."""
    name = item.entity.strip()
    if not name or vacuous(name):
        return [f"ruled-out entity {item.entity!r} names nothing"]
    negated = negated_block(check.edges, check.target or "") if check.edges else []
    problems = []
    for role, quote, edges, kind in (
            ("meets", item.meets, [e for e in check.edges if e not in negated], "must-hold"),
            ("ruled_out", item.ruled_out, negated, "negated")):
        if problem := quote_problem(f"its {role} sentence", quote, passages):
            problems.append(f": {problem}")
        if not quote_found(name, quote.text, min_coverage=1.0):
            problems.append(f" is not in its {role} sentence")
        terms = _terms(edges)
        if terms and not _stems([quote.text]) & _stems(terms):
            problems.append(f": its {role} sentence shares no word with the {kind} triples "
                            f"({'; '.join(terms)})")
    if any(_same_thing(name, part) for part in answer_parts(output.answer)):
        problems.append(" is the answer, which the negation must leave in")
    if any(_same_thing(name, term) for term in _terms(negated)):
        problems.append(" is a term of the negated triple, not an entity it rules out")
    return [f"ruled-out {name!r}{problem}" for problem in problems]


def exclusion_problems(output: LogicalQueryOutput, passages: Sequence[str],
                       check: StructureCheck) -> list[str]:
    """Why a capable model's negation query shows no entity its negation rules out: a
    negation that excludes nothing in the passages does no work (ComLQ scores retrievers
    on passages that violate it, LSNC@K)."""
    excluded = getattr(output, "excluded", None) or []
    if not excluded:
        return ["names no entity of the passages that the negation rules out (a negation "
                "that excludes nothing does no work: negate a fact the passages state of "
                "another candidate)"]
    return [problem for item in excluded
            for problem in excluded_problems(item, output, passages, check)]


def query_problems(qtype: QueryType, output: LogicalQueryOutput, passages: Sequence[str],
                   own_wording: bool = False) -> tuple[StructureCheck, list[str]]:
    """The structure verdict and every reason to reject (``structure:``, ``evidence:``,
    ``answer:``, and for a capable model's negation type ``negation:``), in that order;
    ``own_wording`` (a capable model) as :func:`answer_problems` reads it."""
    check = check_structure(output.triples, qtype)
    problems = [f"structure: {reason}" for reason in check.reasons]
    problems += [f"evidence: {reason}" for reason in evidence_problems(output, passages)]
    problems += [f"answer: {reason}"
                 for reason in answer_problems(output, passages, own_wording)]
    if own_wording and qtype.has_negation:
        problems += [f"negation: {reason}"
                     for reason in exclusion_problems(output, passages, check)]
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
        excluded = getattr(self.output, "excluded", None)
        if excluded:  # what the negation rules out, each quote with its passage's id
            metadata["excluded"] = [
                {"entity": item.entity, **{role: {**quote.model_dump(),
                                                  "doc_id": self.plan.doc_ids[quote.passage - 1]}
                                           for role, quote in (("meets", item.meets),
                                                               ("ruled_out", item.ruled_out))}}
                for item in excluded]
        if judge_score is not None:
            metadata["judge_score"] = judge_score
        return Query(self.plan.query_id, self.output.query, metadata)


def demo_variables(type_name: str, demo: Demonstration,
                   open_fields: bool = False) -> dict[str, Any]:
    """The type's part of ``logical.query``'s variables: definition, indicator and the worked
    example, written with every key the output schema requires (empty groups included: an
    example without them teaches the model an answer the schema refuses); ``open_fields``
    (a capable model): a negation type's example also names what its negation rules out."""
    qtype = get_type(type_name)
    ask_excluded = open_fields and qtype.has_negation
    example = demo.output.model_dump(mode="json")
    if ask_excluded:
        example["excluded"] = [item.model_dump(mode="json") for item in demo.excluded]
    return {"type_name": qtype.name, "definition": qtype.definition, "idea": qtype.idea,
            "indicator": qtype.indicator(), "demo_passage": demo.passage,
            "demo_output": json.dumps(example, ensure_ascii=False),
            "ask_excluded": ask_excluded}


def query_variables(item: QueryItem, open_fields: bool = False) -> dict[str, Any]:
    """Template variables of ``logical.query`` for one item (``open_fields``: a capable
    model's, as :func:`demo_variables` reads it)."""
    passages = [{"number": number, "context": doc_context(doc), "text": doc.text}
                for number, doc in enumerate(item.passages, start=1)]
    low, high = evidence_bounds(item.plan.qtype, len(passages))
    return {**demo_variables(item.plan.qtype, item.demo, open_fields), "passages": passages,
            "passage_count": len(passages), "evidence_min": low, "evidence_max": high}


def query_reasons(item: QueryItem, output: LogicalQueryOutput,
                  own_wording: bool = False) -> list[str]:
    """Why a query answer is rejected: structure, evidence and answer checks."""
    return query_problems(get_type(item.plan.qtype), output, item.texts, own_wording)[1]


def accept_query(item: QueryItem, output: LogicalQueryOutput,
                 own_wording: bool = False) -> AcceptedQuery:
    """The accepted query with its checked structure (model and grade are filled in later)."""
    check, problems = query_problems(get_type(item.plan.qtype), output, item.texts,
                                     own_wording)
    if problems:
        raise Rejected("; ".join(problems))
    return AcceptedQuery(item.plan, output, check)


def query_step(open_fields: bool = False) -> Step[QueryItem, AcceptedQuery]:
    """One query of the plan's type from its passages, with triples, answer and evidence.
    ``open_fields`` (a capable model, llm/profile.py): free subject, object, answer and
    evidence strings, checked afterwards, its answer grounded by form in the passages; else
    enums of the passages' names and sentences, the answer found whole."""

    def model(item: QueryItem) -> type[LogicalQueryOutput]:
        if open_fields:
            return open_query_model(item.plan.qtype, len(item.passages))
        return query_model(item.plan.qtype, item.texts, tuple(d.title for d in item.passages))

    return Step(
        name=QUERY_STEP, template="logical.query",
        output_model=model,
        variables=partial(query_variables, open_fields=open_fields),
        item_id=lambda item: item.plan.query_id,
        validators=(partial(query_reasons, own_wording=open_fields),),
        accept=partial(accept_query, own_wording=open_fields),
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
