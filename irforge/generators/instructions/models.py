"""Pydantic output models the LLM engine fills, one per generation step (paper A.1-A.6).

Kept flat (one or two string fields) so that small local models can follow the JSON schema;
what the strings must satisfy is checked by plain code in :mod:`.validate`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class KeywordCondition(BaseModel):
    """A keyword condition for one query-document pair (A.1, table 3)."""

    keyword: str = Field(min_length=1, max_length=60,
                         description="a term from the document that refines the query")


class InstructedQuery(BaseModel):
    """The query rephrased, then one sentence stating the constraint (A.3, table 5)."""

    instructed_query: str = Field(min_length=1, max_length=600)


class ReversedQuery(BaseModel):
    """The instructed query with its constraint negated (A.5, table 7)."""

    reversed_query: str = Field(min_length=1, max_length=600)


class RewrittenDocument(BaseModel):
    """A document rewritten to satisfy one condition value (A.4, table 6)."""

    document: str = Field(min_length=1, max_length=12000)


class HardNegativeDocument(BaseModel):
    """A document that looks relevant to the query but cannot answer it (A.6, table 8)."""

    document: str = Field(min_length=1, max_length=6000)
