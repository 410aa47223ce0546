"""What every InfoSearch step shares: output-model settings, seeded randomness, query checks."""

from __future__ import annotations

import random
import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from irforge.generators.instructions.text import (
    content_words,
)

STEP = "instructions"


# -- output models: shared settings -----------------------------------------------------------

def _without_description(schema: dict[str, Any]) -> None:
    """Keep docstrings out of the schema shown to the model (small models copy them)."""
    schema.pop("description", None)


class _Output(BaseModel):
    model_config = ConfigDict(json_schema_extra=_without_description)


def shown(condition: str) -> str:
    """A condition value as words for prompts (``forum_post`` -> ``forum post``)."""
    return condition.replace("_", " ")


def _rng(seed: int, *key: str) -> random.Random:
    return random.Random(":".join((str(seed), *key)))


NEGATION_WINDOW = 8  # words between a negation cue and the condition term it negates
MAX_KEYWORD_WORDS = 4
_GENERIC_USER = re.compile(r"^(?:user|anonymous|anon|username|poster|member|person|guest)"
                           r"[\s_-]*[a-z]?\d*$", re.IGNORECASE)
_SPEAKER = re.compile(r"^\s*[@*]*([^\W\d_][\w.\-]{1,30})[*]*\s*(?:\([^)]*\))?\s*(?::|wrote:|said:)",
                      re.MULTILINE | re.UNICODE)
_CODE_LINE = re.compile(r"[=;{}]|\w\(.*\)|^\s*(?:def|import|from|class|return|for|if|print|"
                        r"function|var|let|const|#include|SELECT|\$)\b", re.IGNORECASE)
_MANUAL_MARK = re.compile(r"^\s*(?:#{1,6}\s|\d+(?:\.\d+)*[.)]?\s|[-*•]\s|(?:note|warning|usage|"
                          r"parameters?|returns?|syntax|section|step \d+|description)\b)",
                          re.IGNORECASE | re.MULTILINE)
_DATE = re.compile(r"\b(?:1[89]\d\d|20\d\d)\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
                   r"nov|dec)[a-z]*\.?\s+\d{1,2}\b", re.IGNORECASE)
_BYLINE = re.compile(r"\bby\s+[A-Z]|\bauthor\b|\bposted by\b|\bwritten by\b", re.IGNORECASE)


def _query_checks(text: str, core_query: str) -> list[str]:
    reasons = []
    if not text.strip():
        return ["text is empty"]
    query_words = content_words(core_query)
    if query_words and not query_words & content_words(text):
        reasons.append("shares no content word with the core query (the query must be kept)")
    return reasons


