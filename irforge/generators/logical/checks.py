"""Prompt inputs and the plain-code review of every LLM answer (ComLQ, Expert Verification).

Each function is pure: engine results in, accepted queries or :class:`Failure` records out,
so the checks are tested without any model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.evidence import (
    answer_parts,
    answer_problems,
    evidence_problems,
    quote_found,
    tokens,
)
from irforge.generators.logical.fol import negated_block, render_fol
from irforge.generators.logical.models import (
    HypotheticalPassage,
    LogicalQueryOutput,
    StructureJudgment,
)
from irforge.generators.logical.selection import QueryPlan
from irforge.generators.logical.structure import StructureCheck, check_structure, is_variable
from irforge.generators.logical.types import get_type
from irforge.records import Doc, Failure, Judgment, Query

QUERY_STEP = "logical.query"
JUDGE_STEP = "logical.judge"
HYPOTHETICAL_STEP = "logical.hypothetical"
MIN_HYPOTHETICAL_WORDS = 15


@dataclass(frozen=True)
class AcceptedQuery:
    """A generated query that passed every check, with what the output files need."""

    plan: QueryPlan
    output: LogicalQueryOutput
    check: StructureCheck
    model: str
    demo_grade: bool

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
            "demo_grade": self.demo_grade}
        if judge_score is not None:
            metadata["judge_score"] = judge_score
        return Query(self.plan.query_id, self.output.query, metadata)


def query_item(plan: QueryPlan, docs_by_id: Mapping[str, Doc]) -> dict[str, Any]:
    """Template variables of ``logical.query`` for one plan."""
    qtype = get_type(plan.qtype)
    demo = DEMONSTRATIONS[qtype.name]
    passages = [{"number": number, "title": docs_by_id[doc_id].title,
                 "text": docs_by_id[doc_id].text}
                for number, doc_id in enumerate(plan.doc_ids, start=1)]
    demo_output = demo.output.model_dump(mode="json")
    demo_output["triples"] = {k: v for k, v in demo_output["triples"].items() if v}
    return {"type_name": qtype.name, "definition": qtype.definition, "idea": qtype.idea,
            "indicator": qtype.indicator(), "demo_passage": demo.passage,
            "demo_output": json.dumps(demo_output, ensure_ascii=False),
            "passages": passages, "passage_count": len(passages)}


def _failure(step: str, item_id: str, reason: str, result: Any,
             metadata: Mapping[str, Any]) -> Failure:
    return Failure(step, item_id, reason, getattr(result, "raw", None),
                   {**dict(metadata), "status": getattr(result, "status", None)})


def review_query(plan: QueryPlan, result: Any, passages: Sequence[str]) -> AcceptedQuery | Failure:
    """Accept an engine answer only if its structure, evidence and answer all check out."""
    meta = {"type": plan.qtype, "doc_ids": list(plan.doc_ids)}
    if result.status != "ok" or not isinstance(result.value, LogicalQueryOutput):
        return _failure(QUERY_STEP, plan.query_id,
                        f"engine status {result.status}: {result.error or 'no value'}",
                        result, {**meta, "check": "engine"})
    output: LogicalQueryOutput = result.value
    check = check_structure(output.triples, get_type(plan.qtype))
    problems = [("structure", reason) for reason in check.reasons]
    problems += [("evidence", reason) for reason in evidence_problems(output, passages)]
    problems += [("answer", reason) for reason in answer_problems(output, passages)]
    if problems:
        reason = "; ".join(f"{kind}: {text}" for kind, text in problems)
        return _failure(QUERY_STEP, plan.query_id, reason, result,
                        {**meta, "check": problems[0][0], "reasons": [t for _, t in problems]})
    return AcceptedQuery(plan, output, check, getattr(result, "model", ""),
                         bool(getattr(result, "demo_grade", False)))


def judge_item(accepted: AcceptedQuery) -> dict[str, Any]:
    """Template variables of ``logical.judge``."""
    qtype = get_type(accepted.plan.qtype)
    triples = {k: v for k, v in accepted.output.triples.model_dump().items() if v}
    return {"type_name": qtype.name, "definition": qtype.definition,
            "indicator": qtype.indicator(), "query": accepted.output.query,
            "answer": accepted.output.answer, "triples": json.dumps(triples, ensure_ascii=False)}


def review_judgment(accepted: AcceptedQuery, result: Any,
                    min_score: int) -> tuple[list[Judgment], Failure | None]:
    """Judgments (one per query-passage pair) and a failure when the score is below the bar."""
    qid = accepted.plan.query_id
    if result.status != "ok" or not isinstance(result.value, StructureJudgment):
        return [], _failure(JUDGE_STEP, qid, f"judge status {result.status}: "
                            f"{result.error or 'no value'}", result, {"check": "judge"})
    value: StructureJudgment = result.value
    judgments = [Judgment(qid, doc_id, float(value.score), "llm", result.prompt_id, result.model,
                          result.raw, task="logical.structure",
                          metadata={"reason": value.reason, "type": accepted.plan.qtype})
                 for doc_id in accepted.plan.doc_ids]
    if value.score < min_score:
        return judgments, _failure(JUDGE_STEP, qid, f"judge scored structure {value.score} < "
                                   f"{min_score}: {value.reason}", result,
                                   {"check": "judge", "score": value.score})
    return judgments, None


def hypothetical_item(accepted: AcceptedQuery) -> dict[str, Any]:
    """Template variables of ``logical.hypothetical``."""
    negated = " and ".join(f"({t['subject']}, {t['relation']}, {t['object']})"
                           for t in accepted.negated)
    return {"query": accepted.output.query, "answer": accepted.output.answer,
            "type_name": accepted.plan.qtype, "negated": negated}


def review_hypothetical(accepted: AcceptedQuery, result: Any) -> Doc | Failure:
    """A hypothetical negative passage, unless it is too short, names the answer, or (for
    negation queries) never mentions the entity of the negated branch it should violate."""
    qid = accepted.plan.query_id
    if result.status != "ok" or not isinstance(result.value, HypotheticalPassage):
        return _failure(HYPOTHETICAL_STEP, qid, f"engine status {result.status}: "
                        f"{result.error or 'no value'}", result, {"check": "engine"})
    passage: HypotheticalPassage = result.value
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
    if problems:
        return _failure(HYPOTHETICAL_STEP, qid, "; ".join(problems), result,
                        {"check": "hypothetical"})
    return Doc(f"{qid}-hyp", passage.text.strip(), passage.title.strip(),
               {"synthetic": "hypothetical", "query_id": qid,
                "violates_negation": bool(accepted.negated)})
