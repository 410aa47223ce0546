"""Words of passages and queries, as the judge controls compare them: content words, whether
a passage holds an answer, which document a passage comes from."""

from __future__ import annotations

import re

from irforge.core.records import Doc
from irforge.core.stopwords import ENGLISH, REQUEST_WORDS

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = ENGLISH | REQUEST_WORDS  # function words and a request's frame ("claim")


def content_words(text: str) -> set[str]:
    """Lower-cased words of 3+ characters that are not function words."""
    return {w for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 2 and w not in _STOP}


def has_answer(passage: str, answer: str) -> bool:
    """Whether the passage holds any part of the answer (parts split at ``;`` and ``,``): all
    of a part's content words, or a part's numbers, occur in the passage."""
    words = content_words(passage) | set(re.findall(r"\d+(?:[.,]\d+)*", passage))
    for part in re.split(r"[;,]\s+|\n", answer):
        needed = content_words(part) | set(re.findall(r"\d+(?:[.,]\d+)*", part))
        if needed and needed <= words:
            return True
    return False


def document_of(doc: Doc) -> str:
    """The document a passage comes from: the corpus pipeline's ``doc_id`` metadata, else
    the passage id without a ``_N`` chunk suffix."""
    named = (doc.metadata or {}).get("doc_id")
    if isinstance(named, str) and named:
        return named
    base, _, suffix = doc.doc_id.rpartition("_")
    return base if base and suffix.isdigit() else doc.doc_id
