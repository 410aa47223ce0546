"""The judging step: one query with its relevant passage(s) in, a yes/no verdict out.

Real items (a query with its labelled relevant passages) and control items (a query with one
passage whose right verdict is known) render through the same template, so the judge cannot
tell them apart; a real query with one relevant passage renders exactly as its positive
control does (one cached answer serves both).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from irforge.steps.step import Step

STEP = "check.answers"
TEMPLATE = "check.answers"
MAX_PASSAGES = 3  # relevant passages shown per query (highest grade first, qrels order)


class AnswerVerdict(BaseModel):
    """The judge's verdict: does the passage answer the query as a searcher would ask it?"""

    reason: str = Field(max_length=400, description="one sentence saying why")
    answers: Literal["yes", "no"]


@dataclass(frozen=True)
class JudgeItem:
    """What the judge sees: a query and the passage(s) offered as its answer."""

    item_id: str
    query_id: str
    query: str
    passages: tuple[tuple[str, str], ...]  # (document context lines, passage text)
    doc_ids: tuple[str, ...] = ()


def variables(item: JudgeItem) -> dict[str, Any]:
    """Template variables of ``check.answers``."""
    return {"query": item.query,
            "passages": [{"number": n, "context": context, "text": text}
                         for n, (context, text) in enumerate(item.passages, start=1)]}


def answer_step() -> Step[JudgeItem, AnswerVerdict]:
    """The judge's verdict on one item; every parsed verdict is kept (the caller decides)."""
    return Step(name=STEP, template=TEMPLATE, output_model=AnswerVerdict,
                variables=variables, item_id=lambda item: item.item_id,
                metadata=lambda item: {"query_id": item.query_id, "doc_ids": list(item.doc_ids)})


def decision(verdict: AnswerVerdict | None) -> int | None:
    """1 when the judge says the passage answers, 0 when it says not, None without a verdict."""
    return None if verdict is None else int(verdict.answers == "yes")


def limited(doc_ids: Sequence[str]) -> tuple[str, ...]:
    """The relevant passages a real item shows (the first :data:`MAX_PASSAGES`)."""
    return tuple(doc_ids[:MAX_PASSAGES])
