"""Pydantic models the LLM must fill for each MultiConIR step (paper section 3.2, appendix B).

List lengths are part of the schema so that schema-constrained decoding asks for exactly the
number of items wanted; the plain-code validators check them again, because not every provider
enforces a schema.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, Field, create_model, field_validator

from irforge.generators.multicon.sentences import normalize

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


class ConditionSentences(BaseModel):
    """Step 1: sentences copied from the document, each stating one condition."""

    sentences: list[Sentence]

    @field_validator("sentences")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        return distinct(value, "sentence")


class InstructionQuery(BaseModel):
    """Step 2, instruction style: one short condition phrase per condition sentence, in order."""

    conditions: list[Phrase]

    @field_validator("conditions")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        return distinct(value, "condition")


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


class SubQuery(BaseModel):
    """One sub-query of an adaptive decomposition and the 1-based conditions it covers."""

    text: str
    conditions: list[int]


class AdaptiveDecomposition(BaseModel):
    """Sub-queries chosen by the LLM (stage-aware decomposition paper, adaptive strategy)."""

    subqueries: list[SubQuery]


@lru_cache(maxsize=64)
def condition_sentences_model(n: int) -> type[ConditionSentences]:
    """ConditionSentences whose schema asks for exactly ``n`` sentences."""
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"ConditionSentences{n}", __base__=ConditionSentences,
        sentences=(list[Sentence], Field(min_length=n, max_length=n)))


@lru_cache(maxsize=64)
def instruction_query_model(k: int) -> type[InstructionQuery]:
    """InstructionQuery whose schema asks for exactly ``k`` condition phrases."""
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"InstructionQuery{k}", __base__=InstructionQuery,
        conditions=(list[Phrase], Field(min_length=k, max_length=k)))
