"""Pydantic output models the LLM fills for ComLQ-style logical queries (ComLQ, Data Synthesis)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Triple(BaseModel):
    """One edge of the query graph: constants are anchors, names starting with '?' are variables."""

    model_config = ConfigDict(frozen=True)

    subject: str = Field(description="an entity from the passage, or a variable such as ?v1 or ?t")
    relation: str = Field(description="the relation, in a few words")
    object: str = Field(description="an entity from the passage, or a variable such as ?v1 or ?t")


class TripleGroups(BaseModel):
    """The query's triples grouped by the set operation they take part in."""

    projection: list[Triple] = Field(default_factory=list,
                                     description="hops of a relation chain")
    intersection: list[Triple] = Field(default_factory=list,
                                       description="branches that must all hold")
    union: list[Triple] = Field(default_factory=list,
                                description="alternative branches, any of which may hold")
    negation: list[Triple] = Field(default_factory=list,
                                   description="triples that must NOT hold (written without ¬)")


class Evidence(BaseModel):
    """A sentence copied from one of the given passages that supports part of the query."""

    passage: int = Field(ge=1, description="1-based number of the passage the quote comes from")
    text: str = Field(description="a sentence copied from that passage")


class LogicalQueryOutput(BaseModel):
    """What the generator asks the LLM for: the query, its answer, triples and evidence."""

    query: str = Field(description="the natural-language question")
    answer: str = Field(description="the answer entity (or entities, comma separated)")
    triples: TripleGroups
    evidence: list[Evidence] = Field(default_factory=list)


class StructureJudgment(BaseModel):
    """An LLM judge's structure-conformity score on ComLQ's 1-4 scale."""

    score: int = Field(ge=1, le=4, description="1: wrong structure ... 4: exactly the type")
    reason: str = Field(description="one sentence explaining the score")


class HypotheticalPassage(BaseModel):
    """A plausible but wrong passage written to look relevant (HyDE-style negative)."""

    title: str
    text: str
