"""Plain-code validators for every generated item; each returns the reasons it rejects (empty: ok).

They check what can be checked without an LLM: a keyword occurs in its document, an instruction
states its condition, a reversal negates that same condition, a rewrite has the length and the
format markers its condition asks for, a hard negative shares words with the query but is no
copy of a positive.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from irforge.generators.instructions.dimensions import ConditionValue
from irforge.generators.instructions.text import (
    STOPWORDS,
    content_words,
    han_ratio,
    has_negation,
    jaccard,
    mentions,
    normalize,
    paragraphs,
    sentences,
    words,
)

NEGATION_WINDOW = 8  # words between a negation cue and the condition term it negates
MAX_KEYWORD_WORDS = 4
MAX_QUERY_WORDS = 80
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


def clean_keyword(keyword: str) -> str:
    """The keyword without surrounding quotes, brackets, labels or punctuation."""
    text = keyword.strip()
    text = re.sub(r"^(?:condition|keyword)\s*:\s*", "", text, flags=re.IGNORECASE)
    return text.strip(" \t\n\"'“”‘’`[](){}<>.,;:!?")


def check_keyword(keyword: str, query: str, document: str,
                  other_documents: Sequence[str] = ()) -> list[str]:
    """A keyword must be a content term found in its document and in no other positive."""
    term = clean_keyword(keyword)
    tokens = words(term)
    if not tokens:
        return ["keyword is empty"]
    reasons = []
    if len(tokens) > MAX_KEYWORD_WORDS:
        reasons.append(f"keyword has {len(tokens)} words (at most {MAX_KEYWORD_WORDS})")
    if all(token in STOPWORDS for token in tokens):
        reasons.append(f"keyword {term!r} is a stop-word")
    if normalize(term) == normalize(query).rstrip("?.!"):
        reasons.append("keyword repeats the whole query")
    if not mentions(document, term):
        reasons.append(f"keyword {term!r} does not occur in the document")
    shared = sum(mentions(other, term) for other in other_documents)
    if shared:
        reasons.append(f"keyword {term!r} also occurs in {shared} other positive document(s) "
                       "of the query, so it cannot single out one document")
    return reasons


def _term_positions(sentence: str, terms: Sequence[str]) -> list[int]:
    text = normalize(sentence)
    found = []
    for term in terms:
        phrase = normalize(term)
        if not phrase:
            continue
        pattern = r"(?<![^\W_])" + re.escape(phrase) + r"(?:s|es)?(?![^\W_])"
        found.extend(match.start() for match in re.finditer(pattern, text))
    return found


def condition_mentions(text: str, terms: Sequence[str]) -> tuple[int, int]:
    """Counts of (plain, negated) mentions of the condition's terms across the sentences."""
    plain = negated = 0
    for sentence in sentences(text) or [text]:
        lowered = normalize(sentence)
        for position in _term_positions(sentence, terms):
            before = lowered[:position]
            window = " ".join(before.split()[-NEGATION_WINDOW:])
            if has_negation(window):
                negated += 1
            else:
                plain += 1
    return plain, negated


def _query_checks(text: str, core_query: str) -> list[str]:
    reasons = []
    if not text.strip():
        return ["text is empty"]
    if len(words(text)) > MAX_QUERY_WORDS:
        reasons.append(f"has {len(words(text))} words (at most {MAX_QUERY_WORDS})")
    query_words = content_words(core_query)
    if query_words and not query_words & content_words(text):
        reasons.append("shares no content word with the core query (the query must be kept)")
    return reasons


def check_instruction(text: str, core_query: str, condition: ConditionValue) -> list[str]:
    """Two-sentence style (query, then constraint) that states the condition positively."""
    reasons = _query_checks(text, core_query)
    if reasons and reasons[0] == "text is empty":
        return reasons
    count = len(sentences(text))
    if not 2 <= count <= 3:
        reasons.append(f"has {count} sentence(s); expected the rephrased query, then the "
                       "constraint (2 sentences)")
    plain, negated = condition_mentions(text, condition.terms)
    if plain == 0:
        what = "negates" if negated else "does not mention"
        reasons.append(f"{what} the condition {condition.name!r} "
                       f"(expected one of: {', '.join(condition.terms[:6])})")
    return reasons


def check_reversal(reversed_text: str, instructed_text: str, core_query: str,
                   condition: ConditionValue) -> list[str]:
    """A reversal differs from the instruction and negates the same condition."""
    reasons = _query_checks(reversed_text, core_query)
    if reasons and reasons[0] == "text is empty":
        return reasons
    if normalize(reversed_text) == normalize(instructed_text):
        reasons.append("reversed instruction is identical to the instruction")
    _, negated = condition_mentions(reversed_text, condition.terms)
    if negated == 0:
        reasons.append(f"does not negate the condition {condition.name!r} (expected a negation "
                       f"such as 'not' or 'other than' before: {', '.join(condition.terms[:6])})")
    return reasons


def forum_speakers(text: str) -> set[str]:
    """Distinct user names that open a line of a forum thread (``name: ...``)."""
    return {match.group(1) for match in _SPEAKER.finditer(text)}


def _marker_checks(text: str, markers: dict, user_names: Sequence[str]) -> list[str]:
    reasons = []
    min_users = int(markers.get("min_users", 0))
    if min_users:
        speakers = forum_speakers(text)
        generic = sorted(name for name in speakers if _GENERIC_USER.match(name))
        if generic:
            reasons.append(f"forum uses generic user names {generic}; use real-looking names")
        if len(speakers) - len(generic) < min_users:
            reasons.append(f"forum post has {len(speakers) - len(generic)} distinct user(s) "
                           f"opening lines as 'name: ...'; needs at least {min_users}")
        elif user_names and not speakers & set(user_names):
            reasons.append("forum post uses none of the user names it was given")
    if markers.get("code") and sum(bool(_CODE_LINE.search(line))
                                   for line in text.splitlines()) < 1 and "```" not in text:
        reasons.append("no code found (expected a fenced block or lines of code)")
    if markers.get("manual") and not _MANUAL_MARK.search(text):
        reasons.append("no manual structure found (headings, numbered steps, Note:/Usage:)")
    if markers.get("blog"):
        head = "\n".join(text.strip().splitlines()[:4])
        if not re.search(r"\bblog\b", head, re.IGNORECASE):
            reasons.append("blog byline must contain the word 'Blog' near the title")
        if not _DATE.search(head):
            reasons.append("blog byline has no publication date")
        if not _BYLINE.search(head):
            reasons.append("blog byline names no author ('by ...')")
    script = markers.get("script")
    if script == "han" and han_ratio(text) < 0.5:
        reasons.append("text is not mainly Chinese")
    if script == "latin" and han_ratio(text) > 0.1:
        reasons.append("text is not in a Latin-script language")
    return reasons


def _bound_checks(text: str, bounds: dict) -> list[str]:
    measures = {"words": len(words(text)), "sentences": len(sentences(text)),
                "paragraphs": len(paragraphs(text))}
    reasons = []
    for unit, value in measures.items():
        low, high = bounds.get(f"min_{unit}"), bounds.get(f"max_{unit}")
        if low is not None and value < low:
            reasons.append(f"has {value} {unit}, below the minimum {low}")
        if high is not None and value > high:
            reasons.append(f"has {value} {unit}, above the maximum {high}")
    return reasons


def check_document(text: str, condition: ConditionValue,
                   user_names: Sequence[str] = ()) -> list[str]:
    """Does a document show the markers and lengths its condition value requires?"""
    if not text.strip():
        return ["document is empty"]
    return (_bound_checks(text, dict(condition.bounds))
            + _marker_checks(text, dict(condition.markers), user_names))


def check_rewrite(text: str, source_text: str, condition: ConditionValue,
                  user_names: Sequence[str] = (), min_length_ratio: float = 1 / 3) -> list[str]:
    """A rewrite keeps the source's topic, differs from it, and satisfies its condition.

    Without word bounds on the condition (Audience, Source), a rewrite must also keep at least
    ``min_length_ratio`` of the source's words: a title alone is no rewrite.
    """
    reasons = check_document(text, condition, user_names)
    if not text.strip():
        return reasons
    bounded = "min_words" in condition.bounds or "max_words" in condition.bounds
    if not bounded and len(words(text)) < min_length_ratio * len(words(source_text)):
        reasons.append(f"has {len(words(text))} words, under {min_length_ratio:.2f} of the "
                       f"source's {len(words(source_text))}; the rewrite drops content")
    if normalize(text) == normalize(source_text):
        reasons.append("rewrite is identical to the source document")
    source_words = content_words(source_text)
    needed = min(2, len(source_words))
    if len(source_words & content_words(text)) < needed:
        reasons.append("rewrite shares almost no content word with the source (topic lost)")
    return reasons


def check_hard_negative(text: str, query: str, positives: Sequence[str],
                        min_words: int = 15, max_similarity: float = 0.6) -> list[str]:
    """Looks on-topic (shares query words) but is no near-copy of a positive document."""
    reasons = []
    if len(words(text)) < min_words:
        reasons.append(f"has {len(words(text))} words (at least {min_words})")
    query_words = content_words(query)
    if query_words and not query_words & content_words(text):
        reasons.append("shares no content word with the query, so it is no hard negative")
    for positive in positives:
        similarity = jaccard(text, positive)
        if similarity >= max_similarity:
            reasons.append(f"word overlap {similarity:.2f} with a positive document "
                           f"(at most {max_similarity}); it may answer the query")
            break
    return reasons
