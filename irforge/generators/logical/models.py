"""Pydantic output models the LLM fills for ComLQ-style logical queries (ComLQ, Data Synthesis)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

# Bounds keep a small model from looping until max_tokens (they become grammar limits).
MAX_GROUP = 3
TERM = "an entity from the passage, or a variable such as ?v1 or ?t"


class Triple(BaseModel):
    """One edge of the query graph: constants are anchors, names starting with '?' are variables."""

    model_config = ConfigDict(frozen=True)

    subject: str = Field(max_length=100, description=TERM)
    relation: str = Field(max_length=60, description="the relation, in a few words")
    object: str = Field(max_length=100, description=TERM)


class TripleGroups(BaseModel):
    """The query's triples grouped by the set operation they take part in."""

    projection: list[Triple] = Field(default_factory=list, max_length=MAX_GROUP,
                                     description="hops of a relation chain")
    intersection: list[Triple] = Field(default_factory=list, max_length=MAX_GROUP,
                                       description="branches that must all hold")
    union: list[Triple] = Field(default_factory=list, max_length=MAX_GROUP,
                                description="alternative branches, any of which may hold")
    negation: list[Triple] = Field(default_factory=list, max_length=MAX_GROUP,
                                   description="triples that must NOT hold (written without ¬)")


class Evidence(BaseModel):
    """A sentence copied from one of the given passages that supports part of the query."""

    passage: int = Field(ge=1, le=3, description="1-based number of the quoted passage")
    text: str = Field(max_length=300, description="a sentence copied from that passage")


class LogicalQueryOutput(BaseModel):
    """What the generator asks the LLM for: the query, its answer, triples and evidence."""

    query: str = Field(max_length=300, description="the natural-language question")
    answer: str = Field(max_length=150, description="the answer entity or entities")
    triples: TripleGroups
    evidence: list[Evidence] = Field(default_factory=list, max_length=4)


class StructureJudgment(BaseModel):
    """An LLM judge's structure-conformity score on ComLQ's 1-4 scale."""

    score: int = Field(ge=1, le=4, description="1: wrong structure ... 4: exactly the type")
    reason: str = Field(max_length=300, description="one sentence explaining the score")


class HypotheticalPassage(BaseModel):
    """A plausible but wrong passage written to look relevant (HyDE-style negative)."""

    title: str = Field(max_length=100)
    text: str = Field(max_length=1200)
