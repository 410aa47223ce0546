"""Word forms a stemmer misses: irregular forms, agent nouns and comparatives, compounds.

Pure functions over two closed tables shipped as data (``irregular_forms.tsv``: "kept" ->
keep, "children" -> child, "better" -> good; ``irregular_exceptions.tsv``: -er/-or/-est words
that are no derived form, "corner", "letter", "forest"). :func:`roots` gives the stems a
content word may be grounded by, so "a Harbour Prize winner" meets "won the Harbour Prize",
"learners" meets "learn" and "lower" meets "low"; :func:`compound_parts` splits "beekeeper"
into "bee" + "keeper" when the passage holds both.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from irforge.check.text import STOPWORDS, stem

#: the shortest base a suffix may leave ("winner" -> "win"); shorter bases are not tried
MIN_BASE = 3
#: the shortest part of a compound ("callsign" -> "call" + "sign")
MIN_PART = 3
# suffixes of agent nouns and comparatives/superlatives, longest first
_DERIVED_SUFFIXES = ("iers", "iest", "ier", "ers", "ors", "est", "er", "or")


def _lines(name: str) -> list[str]:
    text = resources.files("irforge.check").joinpath(name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


@lru_cache(maxsize=1)
def irregular_bases() -> dict[str, str]:
    """Irregular form -> its base form ("kept" -> "keep", "children" -> "child")."""
    table: dict[str, str] = {}
    for line in _lines("irregular_forms.tsv"):
        base, _, forms = line.partition("\t")
        for form in forms.split():
            table.setdefault(form, base)
    return table


@lru_cache(maxsize=1)
def not_derived() -> frozenset[str]:
    """Words ending in -er, -or or -est that are no derived form of a shorter word."""
    return frozenset(w for line in _lines("irregular_exceptions.tsv") for w in line.split())


def base_form(word: str) -> str:
    """The base of an irregular form ("won" -> "win"), else the word itself."""
    return irregular_bases().get(word, word)


def derived_bases(word: str) -> list[str]:
    """Candidate bases of an agent noun or comparative: "winner" -> win, "maker" -> make,
    "earlier" -> early; none for the closed list of look-alikes ("corner", "forest")."""
    singular = word[:-1] if word.endswith("s") and word[:-1] in not_derived() else word
    if singular in not_derived() or word in irregular_bases():
        return []
    for suffix in _DERIVED_SUFFIXES:
        if not word.endswith(suffix):
            continue
        base = word[:-len(suffix)]
        if suffix.startswith("i"):
            base += "y"
        if len(base) < MIN_BASE:
            return []
        out = [base, base + "e"]
        if len(base) > MIN_BASE and base[-1] == base[-2] and base[-1] not in "aeiousl":
            out.append(base[:-1])  # "winner" -> win, "bigger" -> big
        return out
    return []


@lru_cache(maxsize=65536)
def roots(word: str) -> frozenset[str]:
    """The stems ``word`` may be grounded by: its own, its irregular base's ("won" -> win)
    and its derived bases' ("winner" -> win), function words left out."""
    lower = word.lower().replace("’", "'")
    out = {stem(lower), stem(base_form(lower))}
    out.update(stem(base) for base in derived_bases(lower) if base not in STOPWORDS)
    return frozenset(out)


def compound_parts(word: str) -> list[tuple[str, str]]:
    """Every split of a closed compound into two parts of MIN_PART letters or more
    ("beekeeper" -> ("bee", "keeper"), ...)."""
    lower = word.lower()
    return [(lower[:cut], lower[cut:]) for cut in range(MIN_PART, len(lower) - MIN_PART + 1)]
