"""A persona request split into what is asked and the person's own details.

A long request carries its asker's situation ("I'm 34, my son is six months old, we live in
Canada, how long do I boil lentils?"). A clause whose subject is the asker (I, my, we,
our...) and that asks nothing (no question word, no "whether"/"if", no asking verb such as
"know" or "recommend") describes the person, not the need: its words need no passage. What
the request asks, and every clause about anyone else, is grounded as before. A number of a
person's detail that the passage measures in the same unit or counts of the same thing ("a
60 litre tank" against "per 20 litres") is a parameter of the question and stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from irforge.check.grounding import Ungrounded
from irforge.check.text import content_words, names, quantities, stem, stems
from irforge.prompts.forms import is_question, sentences

#: the asker as the subject (or owner of the subject) of a clause
FIRST_PERSON = frozenset({"i", "i'm", "im", "i've", "i'd", "i'll", "my", "me", "we", "we're",
                          "we've", "we'd", "we'll", "our", "us"})
#: words a clause may open with before its subject ("and we live...", "since I...")
_OPENERS = frozenset({"and", "but", "so", "or", "because", "since", "as", "although",
                      "though", "while", "also", "now", "then", "plus", "well", "ok", "okay",
                      "hi", "hello", "actually", "currently", "recently", "basically"})
#: a clause holding one of these asks something, whoever its subject is
_ASKING = re.compile(
    r"\b(what|which|who|whom|whose|when|where|why|how|whether|if|know|wonder|wondering|"
    r"learn|find|understand|figure|tell|explain|recommend|suggest|advise|advice|help|sure|"
    r"unsure|curious|looking|read|ask|asking|show|tips?|ideas?)\b",
    re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"\s*[,;:()]\s*|\s+(?=(?:and|but|so|because|since|although|though|"
                           r"while)\s)", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][\w'’.]*")


#: the details are excused only when what is asked keeps this many content words of its own
#: ("What should I do?" after a paragraph about the asker asks nothing the passage can hold)
MIN_ASKED_WORDS = 2


@dataclass(frozen=True)
class Request:
    """A persona request: the clauses that ask or are about others (``asked``, with the
    numbers of details that are parameters of the question) and the asker's ``details``."""

    asked: str
    details: tuple[str, ...] = ()

    def excuses(self, found: Ungrounded) -> Ungrounded:
        """``found`` without the names, numbers and content words that only the asker's
        details hold."""
        if not self.details:
            return found
        detail = " ".join(self.details)
        kept_numbers = {str(q) for q in quantities(self.asked)} | {
            q.written for q in quantities(self.asked)}
        kept_words = set(content_words(self.asked))
        name_words = {w.lower() for n in names(detail) for w in re.split(r"[-'’]", n)}
        only_details = {w for w in content_words(detail)
                        if w not in kept_words and w not in name_words}
        return replace(
            found,
            names=tuple(n for n in found.names if not _only_in(n, detail, self.asked)),
            numbers=tuple(n for n in found.numbers if n in kept_numbers
                          or n.split()[0] in kept_numbers),
            words=tuple(w for w in found.words if w not in only_details),
            content=max(0, found.content - len(only_details)))


def _only_in(name: str, detail: str, asked: str) -> bool:
    pattern = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
    return re.search(pattern, detail) is not None and re.search(pattern, asked) is None


def _clauses(sentence: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_BREAK.split(sentence) if c and c.strip()]


def _about_the_asker(clause: str) -> bool:
    """The clause's subject is the asker ("I'm 34", "and my son is six months old") and it
    asks nothing."""
    found = [w.lower().replace("’", "'") for w in _WORD.findall(clause)]
    while found and found[0] in _OPENERS:
        found = found[1:]
    return len(found) >= 2 and found[0] in FIRST_PERSON and not _ASKING.search(clause)


def _parameters(clause: str, passage_stems: frozenset[str]) -> list[str]:
    """The numbers of a detail the passage measures or counts alike, each with its word."""
    out = []
    for quantity in quantities(clause):
        match = re.search(rf"(?<![\w.]){re.escape(quantity.written)}(?![\w.])\s*-?\s*"
                          r"([A-Za-z][\w-]*)?", clause)
        word = quantity.unit or (match.group(1) if match and match.group(1) else "")
        if word and stem(word.lower()) in passage_stems:
            out.append(f"{quantity.written} {word}")
    return out


def split_request(text: str, passages: Sequence[str]) -> Request:
    """What of a persona request is grounded, and the asker's details left out of it. The
    request's last sentence is kept whole when nothing else of it asks; nothing is left out
    when what is asked has fewer than MIN_ASKED_WORDS content words."""
    parts = sentences(text)
    asking = [s for s in parts if is_question(s) or any(
        _ASKING.search(c) for c in _clauses(s))]
    keep_last = not asking and parts
    passage_stems = frozenset(w for p in passages for w in stems(p))
    kept: list[str] = []
    details: list[str] = []
    for number, sentence in enumerate(parts):
        if keep_last and number == len(parts) - 1:
            kept.append(sentence)
            continue
        for clause in _clauses(sentence):
            if _about_the_asker(clause):
                details.append(clause)
                kept.extend(_parameters(clause, passage_stems))
            else:
                kept.append(clause)
    asked = " ; ".join(kept)
    if len(set(content_words(asked))) < MIN_ASKED_WORDS:  # the details carry the need
        return Request(text)
    return Request(asked, tuple(details))
