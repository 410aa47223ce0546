"""Echo validator: a field that repeats a prompt's worked example instead of its passage.

Small models copy the few-shot example they were shown ("How many times a loan can be
renewed." for a passage about solar panels). A field echoes a harvested demonstration
(irforge/check/demonstrations.py) when it takes the demonstration's wording (the whole text, a
run of ECHO_NGRAM words, or ECHO_MIN_SHARE of its words in order) AND carries its substance:
a name or number of the demonstration, ECHO_MIN_FOREIGN of its content words, or one content
word the corpus never uses, none of which its passages or its own inputs hold. A shared
question frame alone ("Which actor starred in") is no echo when the passage holds the rest.
A field that is a whole demonstration of three words or more is an echo unless its passages
or inputs hold it as a run (by stems): a demonstration copied onto a passage that happens to
hold its words ("What time does the pool open on Saturday?") still has the prompt's phrasing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from irforge.check.base import Case, Context, Finding, validator
from irforge.check.demonstrations import Demonstration
from irforge.check.morphology import roots
from irforge.check.text import ENUMERATION, STOPWORDS, names, stem, stems

ECHO_NGRAM = 4
#: share of a field's words (in order) a demonstration must hold to be taken as reworded
ECHO_MIN_SHARE = 0.6
#: content words of a demonstration, absent from the passage, that make an echo by themselves
ECHO_MIN_FOREIGN = 2
_TOKEN = re.compile(r"[a-z0-9]+")
# metadata values that are the item's own inputs (an instruction may repeat its condition)
# (an instructed query repeats the core query it instructs; a MultiConIR query names its domain)
OWN_INPUTS = ("condition", "condition_description", "dimension", "task", "category",
              "core_query", "domain")


def tokens(text: str) -> list[str]:
    """Lower-case words and numbers, list markers ("1. ") left out."""
    return _TOKEN.findall(ENUMERATION.sub(" ", text).lower().replace("’", "'"))


@dataclass
class EchoIndex:
    """Every demonstration's words, its names and numbers, and its word n-grams."""

    demonstrations: Sequence[Demonstration]
    words: list[list[str]] = field(default_factory=list)
    marked: list[frozenset[str]] = field(default_factory=list)
    grams: list[frozenset[tuple[str, ...]]] = field(default_factory=list)
    holding: dict[str, list[int]] = field(default_factory=dict)
    whole: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for index, demo in enumerate(self.demonstrations):
            words = tokens(demo.text)
            self.words.append(words)
            if len(words) >= 3:
                self.whole.setdefault(" ".join(words), index)
            self.marked.append(frozenset(
                {t for n in names(demo.text) for t in tokens(n)} | {w for w in words
                                                                    if w.isdigit()}))
            self.grams.append(frozenset(tuple(words[s:s + ECHO_NGRAM])
                                        for s in range(len(words) - ECHO_NGRAM + 1)))
            for word in set(words) - STOPWORDS:
                self.holding.setdefault(word, []).append(index)

    def echo(self, text: str, allowed: Callable[[str], bool],
             in_corpus: Callable[[str], bool],
             runs: frozenset[tuple[str, ...]] = frozenset()) -> tuple[Demonstration, str] | None:
        """The demonstration ``text`` repeats and the words it carried over, or None;
        ``runs`` are the stemmed word runs of its passages and inputs."""
        words = tokens(text)
        whole = self.whole.get(" ".join(words))
        if whole is not None and not _in_runs(words, runs):
            return self.demonstrations[whole], " ".join(words)
        foreign = [w for w in dict.fromkeys(words) if w not in STOPWORDS and not allowed(w)]
        if not foreign:
            return None  # everything the field says is in its passage: nothing to echo
        candidates = sorted({i for w in foreign for i in self.holding.get(w, ())})
        for index in candidates:
            carried = [w for w in foreign if w in self.words[index]]
            substantial = (any(w in self.marked[index] for w in carried)
                           or len(carried) >= ECHO_MIN_FOREIGN
                           or any(not in_corpus(w) for w in carried))
            if substantial and self._worded_like(words, index):
                return self.demonstrations[index], " ".join(carried)
        return None

    def _worded_like(self, words: list[str], index: int) -> bool:
        demo = self.words[index]
        if words == demo and len(words) >= 3:
            return True
        if any(tuple(words[s:s + ECHO_NGRAM]) in self.grams[index]
               for s in range(len(words) - ECHO_NGRAM + 1)):
            return True
        shared = _common_run(words, demo)
        return shared >= max(ECHO_NGRAM, math.ceil(ECHO_MIN_SHARE * min(len(words), len(demo))))


def _in_runs(words: Sequence[str], runs: frozenset[tuple[str, ...]]) -> bool:
    """Whether every ECHO_NGRAM-word run of ``words`` is a run of the passages (by stem)."""
    stemmed = [stem(w) for w in words]
    grams = [tuple(stemmed[i:i + ECHO_NGRAM]) for i in range(len(stemmed) - ECHO_NGRAM + 1)]
    return bool(grams) and all(gram in runs for gram in grams)


def allowed_runs(case: Case) -> frozenset[tuple[str, ...]]:
    """Stemmed ECHO_NGRAM-word runs of the query's passages and own inputs."""
    out: set[tuple[str, ...]] = set()
    for text in _own_texts(case):
        stemmed = [stem(w) for w in tokens(text)]
        out.update(tuple(stemmed[i:i + ECHO_NGRAM])
                   for i in range(len(stemmed) - ECHO_NGRAM + 1))
    return frozenset(out)


def _common_run(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two word lists."""
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


@lru_cache(maxsize=8)
def _index(demonstrations: tuple[Demonstration, ...]) -> EchoIndex:
    return EchoIndex(demonstrations)


def _own_texts(case: Case) -> list[str]:
    """The query's passages, its source and its own inputs: what it may repeat."""
    texts = [f"{doc.title} {doc.text}" for doc in case.grounds]
    if case.source is not None:
        texts.append(f"{case.source.title} {case.source.text}")
    return texts + [str(case.meta.get(key, "")) for key in OWN_INPUTS]


def allowed_words(case: Case) -> set[str]:
    """Stems and word roots the query may use: its passages' and its own inputs'."""
    out: set[str] = set()
    for text in _own_texts(case):
        out |= stems(text)
        for token in tokens(text):
            if token.isdigit():
                out.add(token)  # numbers are compared as written
            else:
                out |= roots(token)
    return out


@validator("echo")
def check_echo(case: Case, context: Context) -> Iterator[Finding]:
    """Any field that repeats a worked example, demonstration or sample value of a prompt."""
    index = _index(tuple(context.demonstrations))
    allowed, runs = allowed_words(case), allowed_runs(case)
    corpus = context.vocabulary_roots

    def in_passage(word: str) -> bool:
        return word in allowed or bool(roots(word) & allowed)

    def in_corpus(word: str) -> bool:
        return bool(roots(word) & corpus)

    for name, text in case.fields.items():
        found = index.echo(text, in_passage, in_corpus, runs)
        if found:
            demo, words = found
            where = "the query" if name == "text" else f"its {name}"
            yield Finding("echo", name, f"{where} repeats the {demo.origin} example "
                          f"({words!r} from {demo.text[:80]!r}), not its passage",
                          "regenerate it from the passage; the model copied the prompt")
