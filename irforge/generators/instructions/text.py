"""Plain-text measures the validators share: words, sentences, paragraphs, stop-words, negation."""

from __future__ import annotations

import re
import unicodedata

from irforge.core.stopwords import ENGLISH

# function words, question words and fillers make no sense as a keyword condition (paper A.1
# names "and" and "what"): the language's one list (irforge/core/stopwords.py)
STOPWORDS = ENGLISH

# Cues that turn a constraint into its opposite (paper A.5: "do not answer in Chinese").
NEGATION_PATTERNS = (
    r"\bnot\b", r"\bno\b", r"n't\b", r"\bwithout\b", r"\bavoid(?:s|ing)?\b", r"\bother than\b",
    r"\bexclud(?:e|es|ing)\b", r"\brather than\b", r"\binstead of\b", r"\bexcept\b",
    r"\bnever\b", r"\bnon[- ]", r"\bnothing\b", r"\bapart from\b", r"\bskip(?:ping)?\b",
    r"\bleave out\b", r"\bomit(?:ting)?\b", r"\bfree of\b", r"\bbesides\b",
)
_NEGATION = re.compile("|".join(NEGATION_PATTERNS), re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”’)\]]*\s+|(?<=[。！？])")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def normalize(text: str) -> str:
    """Lower-cased, NFKC, whitespace collapsed, curly quotes straightened."""
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    return " ".join(text.lower().split())


def words(text: str) -> list[str]:
    """Word tokens, lower-cased (Han characters count one word each)."""
    out: list[str] = []
    for token in _WORD.findall(normalize(text)):
        han = _HAN.findall(token)
        out.extend(han if han and len(han) == len(token) else [token])
    return out


def content_words(text: str) -> set[str]:
    """Words that are not stop-words and longer than one character."""
    return {w for w in words(text) if w not in STOPWORDS and len(w) > 1}


def sentences(text: str) -> list[str]:
    """Sentences split on terminal punctuation; a trailing fragment counts as one."""
    parts = [part.strip() for part in _SENTENCE_END.split(text.strip())]
    return [part for part in parts if part and words(part)]


def paragraphs(text: str) -> list[str]:
    """Paragraphs separated by blank lines (or single newlines when no blank line exists)."""
    text = text.strip()
    if not text:
        return []
    blocks = re.split(r"\n\s*\n", text) if re.search(r"\n\s*\n", text) else text.split("\n")
    return [block.strip() for block in blocks if block.strip()]


def has_negation(text: str) -> bool:
    return bool(_NEGATION.search(normalize(text)))


def han_ratio(text: str) -> float:
    """Share of Han characters among the letters of the text (language checks)."""
    letters = [ch for ch in text if ch.isalpha()]
    return len(_HAN.findall(text)) / len(letters) if letters else 0.0


def mentions(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words (case-insensitive)."""
    phrase = normalize(phrase).strip()
    if not phrase:
        return False
    if _HAN.search(phrase):
        return phrase in normalize(text)
    pattern = r"(?<![^\W_])" + re.escape(phrase) + r"(?:s|es)?(?![^\W_])"
    return re.search(pattern, normalize(text)) is not None


def jaccard(a: str, b: str) -> float:
    """Word-set Jaccard similarity of two texts."""
    left, right = set(words(a)), set(words(b))
    return len(left & right) / len(left | right) if left | right else 1.0
