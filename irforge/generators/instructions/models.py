"""Pydantic output models the LLM engine fills, one per generation step (paper A.1-A.6).

Kept flat (one string field) so that small local models can follow the JSON schema, and free
of ``max_length`` on long texts: llama.cpp turns such bounds into a grammar too large to
parse. What the strings must satisfy is checked by plain code in :mod:`.validate`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


def _without_description(schema: dict[str, Any]) -> None:
    """Keep docstrings out of the schema shown to the model (small models copy them)."""
    schema.pop("description", None)


class _Output(BaseModel):
    model_config = ConfigDict(json_schema_extra=_without_description)


class KeywordCondition(_Output):
    """A keyword condition for one query-document pair (A.1, table 3)."""

    keyword: str = Field(min_length=1, max_length=60,
                         description="a term from the document that refines the query")


class InstructedQuery(_Output):
    """The query rephrased, then one sentence stating the constraint (A.3, table 5)."""

    instructed_query: str = Field(min_length=1)


class ReversedQuery(_Output):
    """The instructed query with its constraint negated (A.5, table 7)."""

    reversed_query: str = Field(min_length=1)


class RewrittenDocument(_Output):
    """A document rewritten to satisfy one condition value (A.4, table 6)."""

    document: str = Field(min_length=1)


class HardNegativeDocument(_Output):
    """A document that looks relevant to the query but cannot answer it (A.6, table 8)."""

    document: str = Field(min_length=1)
