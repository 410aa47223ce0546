"""Echo validator: a field that repeats a prompt's worked example instead of its passage.

Small models copy the few-shot example they were shown ("How many times a loan can be
renewed." for a passage about solar panels). A field echoes when it shares a run of
ECHO_NGRAM words with one harvested demonstration (irforge/check/demonstrations.py), the run
holds at least ECHO_MIN_CONTENT content words, and one of them is in none of the query's
passages or its own inputs; or when the whole field is a demonstration of three words or more
that its passages and inputs do not hold as a run (by stems). So a demonstration copied whole
onto a passage that happens to hold its words ("What time does the pool open on Saturday?"
for a passage on the pool's Saturday hours) is still an echo: its phrasing is the prompt's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from irforge.check.base import Case, Context, Finding, validator
from irforge.check.demonstrations import Demonstration
from irforge.check.text import STOPWORDS, stems

ECHO_NGRAM = 4
ECHO_MIN_CONTENT = 2
_TOKEN = re.compile(r"[a-z0-9]+")
# metadata values that are the item's own inputs (an instruction may repeat its condition)
OWN_INPUTS = ("condition", "condition_description", "dimension", "task", "category")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("’", "'"))


@dataclass
class EchoIndex:
    """Word n-grams of every demonstration -> the demonstrations holding them."""

    demonstrations: Sequence[Demonstration]
    grams: dict[tuple[str, ...], list[int]] = field(default_factory=dict)
    whole: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for index, demo in enumerate(self.demonstrations):
            words = tokens(demo.text)
            if len(words) >= 3:
                self.whole.setdefault(" ".join(words), index)
            for start in range(len(words) - ECHO_NGRAM + 1):
                gram = tuple(words[start:start + ECHO_NGRAM])
                if sum(1 for w in gram if w not in STOPWORDS) >= ECHO_MIN_CONTENT:
                    self.grams.setdefault(gram, []).append(index)

    def echo(self, text: str, allowed: set[str],
             runs: frozenset[tuple[str, ...]] = frozenset()) -> tuple[Demonstration, str] | None:
        """The demonstration ``text`` repeats and the repeated words, or None; ``allowed``
        are the stems of its passages and inputs, ``runs`` their stemmed word runs."""
        words = tokens(text)
        whole = self.whole.get(" ".join(words))
        if whole is not None and not _in_runs(words, runs):
            return self.demonstrations[whole], " ".join(words)
        for start in range(len(words) - ECHO_NGRAM + 1):
            gram = tuple(words[start:start + ECHO_NGRAM])
            hits = self.grams.get(gram)
            if hits and not _all_allowed(gram, allowed):
                return self.demonstrations[hits[0]], " ".join(gram)
        return None


def _in_runs(words: Sequence[str], runs: frozenset[tuple[str, ...]]) -> bool:
    """Whether every ECHO_NGRAM-word run of ``words`` is a run of the passages (by stem)."""
    from irforge.check.text import stem

    stemmed = [stem(w) for w in words]
    grams = [tuple(stemmed[i:i + ECHO_NGRAM]) for i in range(len(stemmed) - ECHO_NGRAM + 1)]
    return bool(grams) and all(gram in runs for gram in grams)


def allowed_runs(case: Case) -> frozenset[tuple[str, ...]]:
    """Stemmed ECHO_NGRAM-word runs of the query's passages and own inputs."""
    from irforge.check.text import stem

    texts = [f"{doc.title} {doc.text}" for doc in case.grounds]
    if case.source is not None:
        texts.append(f"{case.source.title} {case.source.text}")
    texts += [str(case.meta.get(key, "")) for key in OWN_INPUTS]
    out: set[tuple[str, ...]] = set()
    for text in texts:
        stemmed = [stem(w) for w in tokens(text)]
        out.update(tuple(stemmed[i:i + ECHO_NGRAM])
                   for i in range(len(stemmed) - ECHO_NGRAM + 1))
    return frozenset(out)


def _all_allowed(words: Sequence[str], allowed: set[str]) -> bool:
    from irforge.check.text import stem

    return all(w in STOPWORDS or w in allowed or stem(w) in allowed for w in words)


@lru_cache(maxsize=8)
def _index(demonstrations: tuple[Demonstration, ...]) -> EchoIndex:
    return EchoIndex(demonstrations)


def allowed_words(case: Case) -> set[str]:
    """Stems the query may use: its passages' words and its own inputs' words."""
    texts = [f"{doc.title} {doc.text}" for doc in case.grounds]
    if case.source is not None:
        texts.append(f"{case.source.title} {case.source.text}")
    texts += [str(case.meta.get(key, "")) for key in OWN_INPUTS]
    out: set[str] = set()
    for text in texts:
        out |= stems(text)
        out.update(t for t in tokens(text) if t.isdigit())  # numbers are compared as written
    return out


@validator("echo")
def check_echo(case: Case, context: Context) -> Iterator[Finding]:
    """Any field that repeats a worked example, demonstration or sample value of a prompt."""
    index = _index(tuple(context.demonstrations))
    allowed, runs = allowed_words(case), allowed_runs(case)
    for name, text in case.fields.items():
        found = index.echo(text, allowed, runs)
        if found:
            demo, words = found
            where = "the query" if name == "text" else f"its {name}"
            yield Finding("echo", name, f"{where} repeats the {demo.origin} example "
                          f"({words!r} from {demo.text[:80]!r}), not its passage",
                          "regenerate it from the passage; the model copied the prompt")
