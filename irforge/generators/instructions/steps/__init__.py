"""InfoSearch's LLM steps (paper 2.2 steps 1-6), one module per step, each read top to
bottom: the output model the LLM fills, the plain-code checks of that output, and the
:class:`Step` that ties them to its prompt template.

Steps: 1 ``keyword`` (a keyword condition picked from the document), 4 ``rewrite`` (a document
rewritten into a missing condition value), 3 ``instruction`` (the query plus one sentence
stating the condition), 5 ``reverse`` (the same request with the condition negated), 6
``hard_negative`` (a document that looks relevant but cannot answer). Output models stay flat
(one string) so small models follow them; where a step picks from its input (the keyword) the
schema enumerates the allowed choices, so constrained decoding is verbatim by construction,
and the check runs again for providers that do not constrain. Checks return the reasons they
reject (empty: accepted). Randomness (phrasings, forum user names, angles) comes from
``random.Random`` seeded with the run seed and the item id.
"""

from __future__ import annotations

from irforge.generators.instructions.steps.common import (
    MAX_KEYWORD_WORDS,
    NEGATION_WINDOW,
    STEP,
    shown,
)
from irforge.generators.instructions.steps.hard_negative import (
    ANGLES,
    HardNegativeDocument,
    HardNegativeItem,
    angles,
    check_hard_negative,
    hard_negative_step,
)
from irforge.generators.instructions.steps.instruction import (
    PHRASINGS,
    InstructedQuery,
    InstructionItem,
    ReversedQuery,
    ReverseItem,
    check_instruction,
    check_reversal,
    condition_mentions,
    instruction_step,
    phrasing_styles,
    request_pattern,
    reverse_step,
)
from irforge.generators.instructions.steps.keyword import (
    MAX_KEYWORD_CHOICES,
    KeywordCondition,
    KeywordItem,
    check_keyword,
    clean_keyword,
    keyword_choices,
    keyword_model,
    keyword_step,
)
from irforge.generators.instructions.steps.rewrite import (
    RewriteItem,
    RewrittenDocument,
    check_document,
    check_rewrite,
    forum_speakers,
    requirements,
    rewrite_step,
    user_names,
)

__all__ = [
    "ANGLES", "MAX_KEYWORD_CHOICES", "MAX_KEYWORD_WORDS", "NEGATION_WINDOW",
    "PHRASINGS", "STEP", "HardNegativeDocument", "HardNegativeItem", "InstructedQuery",
    "InstructionItem", "KeywordCondition", "KeywordItem", "ReverseItem", "ReversedQuery",
    "RewriteItem", "RewrittenDocument", "angles", "check_document", "check_hard_negative",
    "check_instruction", "check_keyword", "check_reversal", "check_rewrite", "clean_keyword",
    "condition_mentions", "forum_speakers", "hard_negative_step", "instruction_step",
    "keyword_choices", "keyword_model", "keyword_step", "phrasing_styles", "request_pattern",
    "requirements", "reverse_step", "rewrite_step", "shown", "user_names",
]
