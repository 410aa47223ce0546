"""Pydantic models the LLM must fill for each MultiConIR step (paper section 3.2, appendix B).

List lengths are part of the schema so that schema-constrained decoding asks for exactly the
number of items wanted; the plain-code validators check them again, because not every provider
enforces a schema.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, Field, create_model

# Strings carry no maxLength: llama.cpp unrolls it into one grammar rule per character, and
# long limits crash its grammar parser. Over-long output ends as status "truncated" instead.
Sentence = str
Phrase = str


class ConditionSentences(BaseModel):
    """Step 1: sentences copied from the document, each stating one condition."""

    sentences: list[Sentence]


class InstructionQuery(BaseModel):
    """Step 2, instruction style: one short condition phrase per condition sentence, in order."""

    conditions: list[Phrase]


class DescriptiveQuery(BaseModel):
    """Step 2, descriptive style: one natural-language query covering every condition."""

    query: str


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
