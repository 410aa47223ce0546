"""Outputs that repeat a prompt's worked example instead of describing the source.

Small models copy the few-shot example they were shown ("How long can I borrow an e-reader
from the library?" for a passage about floods). :func:`echoed_examples` finds a run of
ECHO_NGRAM words that the prompt's examples contain and the source does not: invented
content, rejected by every step that shows examples.
"""

from __future__ import annotations

import re

ECHO_NGRAM = 4  # a run of this many words from the prompt's examples, absent from the source
_WORD = re.compile(r"[a-z0-9]+")


def echoed_examples(text: str, examples: str, source: str) -> list[str]:
    """Reasons when ``text`` repeats a few-shot example of the prompt: a run of ECHO_NGRAM
    words found in the examples but not in the source document (invented content)."""
    tokens, seen, own = (_WORD.findall(t.lower()) for t in (text, examples, source))
    grams = {tuple(seen[i:i + ECHO_NGRAM]) for i in range(len(seen) - ECHO_NGRAM + 1)}
    mine = {tuple(own[i:i + ECHO_NGRAM]) for i in range(len(own) - ECHO_NGRAM + 1)}
    echoed = [" ".join(tokens[i:i + ECHO_NGRAM]) for i in range(len(tokens) - ECHO_NGRAM + 1)
              if tuple(tokens[i:i + ECHO_NGRAM]) in grams - mine]
    return [f"repeats the prompt's example ({echoed[0]!r}), not the document"] if echoed else []
