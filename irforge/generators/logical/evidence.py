"""Evidence distribution and grounding (ComLQ, Expert Verification), checked by plain code.

A quote counts as found in a passage when at least ``min_coverage`` of its word tokens occur
in the passage: tolerant of the small edits LLMs make when copying, strict enough to reject
invented sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from irforge.generators.logical.models import LogicalQueryOutput

MIN_COVERAGE = 0.8


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def quote_found(quote: str, passage: str, min_coverage: float = MIN_COVERAGE) -> bool:
    """True when enough of the quote's words appear in the passage."""
    words = tokens(quote)
    if not words:
        return False
    present = set(tokens(passage))
    return sum(word in present for word in words) / len(words) >= min_coverage


def answer_parts(answer: str) -> list[str]:
    """'A, B and C' -> ['A', 'B', 'C']: the entities of a (possibly multi-entity) answer."""
    parts = re.split(r",|;|\band\b|\bor\b", answer)
    return [part.strip() for part in parts if part.strip()]


def evidence_problems(output: LogicalQueryOutput, passages: Sequence[str]) -> list[str]:
    """Reasons the evidence is missing, invented, or not spread over every passage."""
    problems: list[str] = []
    if not output.evidence:
        return ["no supporting evidence given"]
    supported: set[int] = set()
    for item in output.evidence:
        if item.passage > len(passages):
            problems.append(f"evidence cites passage {item.passage} but only {len(passages)} "
                            "passage(s) were given")
        elif not quote_found(item.text, passages[item.passage - 1]):
            problems.append(f"evidence {item.text[:80]!r} is not found in passage {item.passage}")
        else:
            supported.add(item.passage)
    missing = [number for number in range(1, len(passages) + 1) if number not in supported]
    if len(passages) > 1 and missing:
        problems.append("evidence is not distributed: passage(s) "
                        f"{', '.join(map(str, missing))} carry none of it (every passage of a "
                        "multi-passage query must carry part of the evidence)")
    elif not supported and not problems:
        problems.append("no evidence quote is found in the passage")
    return problems


def answer_problems(output: LogicalQueryOutput, passages: Sequence[str]) -> list[str]:
    """Reasons the answer is empty, absent from the passages, or given away by the query."""
    parts = answer_parts(output.answer)
    if not parts:
        return ["the answer is empty"]
    if not output.query.strip():
        return ["the query is empty"]
    joined = "\n".join(passages)
    problems = [f"answer {part!r} does not appear in the passages" for part in parts
                if not quote_found(part, joined, min_coverage=1.0)]
    query_words = set(tokens(output.query))
    leaked = [part for part in parts if tokens(part) and set(tokens(part)) <= query_words]
    if leaked and len(leaked) == len(parts):
        problems.append(f"the query gives away its answer ({', '.join(leaked)})")
    return problems
