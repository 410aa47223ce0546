"""Grounding validators: a query's names, numbers and content words come from its passages.

Names (capitalised words, acronyms, codes) and numbers must all occur in the relevant
passages, up to stems, number formats, unit conversions, the aliases the corpus defines
("ultraviolet (UV)", initials of a multi-word name), initials of a run of passage words
("ppm") and chemical formulas the passage spells out ("NaCl" for "sodium chloride").
Content words may be paraphrased: at least GROUND_MIN_SHARE of them must occur, by form, by
a clipped or initial abbreviation ("ich"), or (queries only) by a passage phrase of the same
meaning (irforge.check.semantic). How a query's words are grounded depends on the form it was
asked for (irforge.check.form_grounding): a persona's context, a refuted claim's changed fact,
an instructed query's core. Per-method rules: a logical query's answer in its passages
(irforge.check.answer_grounding), each MultiConIR condition phrase in its condition
sentence, an InfoSearch keyword instruction's keyword in the document it selects.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from irforge.check.abbreviations import clipped_in, initials_in
from irforge.check.aliases import Aliases, name_initials
from irforge.check.base import Case, Context, Finding, validator
from irforge.check.formulas import formulas, spelled_out
from irforge.check.morphology import compound_parts, roots
from irforge.check.text import (
    ENUMERATION,
    STOPWORDS,
    Quantity,
    content_words,
    names,
    normalized,
    quantities,
    same_quantity,
    stem,
    stems,
    without_possessive,
    words,
)

#: at least this share of a text's content words (not names or numbers) must occur in its
#: passages; names and numbers must all occur
GROUND_MIN_SHARE = 0.5
#: a number after these words is a bound, not a fact: grounded when a passage number of the
#: same kind satisfies it ("between 2000 and 2010" and a passage giving 2003)
_BOUND = re.compile(r"\b(between|more than|over|above|at least|after|since|less than|"
                    r"fewer than|under|below|at most|before|until|up to)\s+"
                    r"(?:about\s+|around\s+)?$", re.IGNORECASE)
_LOWER_BOUNDS = frozenset({"between", "more than", "over", "above", "at least", "after",
                           "since"})
#: adjectives of place names ("English" for England, "Scottish" for Scotland)
_DEMONYM_SUFFIXES = ("ish", "ian", "ese", "an", "ic")


@dataclass(frozen=True)
class Evidence:
    """A passage text prepared for grounding: stems, roots, normalised text, quantities."""

    text: str
    stems: frozenset[str]
    flat: str
    numbers: tuple[Quantity, ...]
    initials: frozenset[str]
    roots: frozenset[str] = frozenset()
    words: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def evidence(text: str) -> Evidence:
    """Prepare ``text`` once (passages are grounded against many times)."""
    every_root = {r for w in words(text) for part in {w, *w.split("-")} if part
                  for r in roots(part)}
    return Evidence(text, frozenset(stems(text)), f" {normalized(text)} ",
                    tuple(quantities(text)),
                    frozenset(short.lower() for short, _ in name_initials(text)),
                    frozenset(every_root), tuple(words(text)))


def _phrase_in(phrase: str, passage: Evidence) -> bool:
    words = phrase.lower().split()
    if f" {normalized(phrase)} " in passage.flat:
        return True
    return bool(words) and all(stem(w) in passage.stems for w in re.findall(r"[a-z]+", phrase))


def term_grounded(term: str, passage: Evidence, aliases: Aliases,
                  forms: bool = False) -> bool:
    """A word or name occurs in the passage: by stem, as written (alone or as a part of a
    hyphenated word: "F1" of "Alt-F1"), as an alias or initials; with ``forms`` (content
    words, never names) also by irregular or derived form ("won" for "winner") or as a closed
    compound of two passage words ("callsign")."""
    lower = term.lower()
    parts = [p for p in re.split(r"[-'’]", lower) if p]
    if stem(lower) in passage.stems or (parts and all(stem(p) in passage.stems for p in parts)):
        return True
    flat_term = normalized(term)
    if f" {flat_term} " in passage.flat or (flat_term and re.search(
            rf"[\s-]{re.escape(flat_term)}[\s-]", passage.flat)):
        return True  # as written, or as a hyphenated part ("F1" of "Alt-F1")
    if lower in passage.initials:
        return True
    if any(_phrase_in(alias, passage) for alias in aliases.of(lower)):
        return True
    return forms and (_form_in(lower, passage) or (len(parts) > 1 and all(
        _form_in(p, passage) for p in parts)))


def _open_compounds(text: str, passages: Sequence[Evidence]) -> set[str]:
    """Words of ``text`` written apart that a passage writes as one word ("call sign" for
    "callsign", "note book" for "notebook")."""
    sequence = words(text)
    out: set[str] = set()
    for first, second in pairwise(sequence):
        if first not in STOPWORDS and second not in STOPWORDS and any(
                stem(first + second) in p.stems for p in passages):
            out.update((first, second))
    return out


def _form_in(word: str, passage: Evidence) -> bool:
    """``word`` by an irregular or derived form, or as a compound of two passage words."""
    if roots(word) & passage.roots or stem(word.replace("-", "")) in passage.stems:
        return True
    return any(a not in STOPWORDS and b not in STOPWORDS and roots(a) & passage.roots
               and roots(b) & passage.roots for a, b in compound_parts(word))


@dataclass(frozen=True)
class Ungrounded:
    """What of a text its passages do not contain."""

    names: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    content: int = 0
    #: content words grounded only by a passage phrase of the same meaning
    paraphrased: tuple[str, ...] = ()

    def words_ok(self, min_share: float = GROUND_MIN_SHARE) -> bool:
        """Whether enough content words occur (names and numbers aside)."""
        return not self.content or len(self.words) / self.content <= 1 - min_share

    def problem(self, min_share: float = GROUND_MIN_SHARE) -> str | None:
        parts = []
        if self.names:
            parts.append(f"name(s) {', '.join(repr(n) for n in self.names)}")
        if self.numbers:
            parts.append(f"number(s) {', '.join(repr(n) for n in self.numbers)}")
        if not self.words_ok(min_share):
            parts.append(f"{len(self.words)} of {self.content} content words "
                         f"({', '.join(repr(w) for w in self.words)})")
        return "; ".join(parts) or None


def ungrounded(text: str, passages: Sequence[str], aliases: Aliases,
               paraphrase: bool = False, names_from: Sequence[str] = ()) -> Ungrounded:
    """The names, numbers and content words of ``text`` that no passage holds; with
    ``paraphrase`` a content word also counts when a passage phrase means the same (asked
    only when the words alone fall short of GROUND_MIN_SHARE). ``names_from`` are texts that
    ground names only (the passages' documents: 'Linux' of a Debian guide)."""
    prepared = [evidence(p) for p in passages if p]
    if not prepared:
        return Ungrounded()
    plain = ENUMERATION.sub(" ", text)
    chemical = formulas(plain)
    missing_formulas = [f for f in chemical if not any(
        term_grounded(f, p, aliases) or spelled_out(f, p.flat) for p in prepared)]
    for formula in chemical:  # a formula's digits are subscripts, not numbers of the query
        plain = re.sub(rf"\b{re.escape(formula)}\b", " ", plain)
    name_list = names(plain)
    missing_names = _names_missing(name_list, prepared, aliases)
    if missing_names and names_from:  # the documents are read only for a name left over
        missing_names = _names_missing(missing_names, [evidence(t) for t in names_from if t],
                                       aliases)
    missing_names = tuple(dict.fromkeys([*missing_formulas, *missing_names]))
    numbers = [other for p in prepared for other in p.numbers]
    missing_numbers = tuple(dict.fromkeys(
        str(q) for q, bound in _with_bounds(plain)
        if not (any(same_quantity(q, other) for other in numbers)
                or (bound and _satisfied(q, bound, numbers)))))
    name_words = {w.lower().replace("’", "'") for n in name_list
                  for w in (n, *re.split(r"[-'’]", n))}
    content = [w for w in dict.fromkeys(content_words(plain)) if w not in name_words]
    joined = _open_compounds(plain, prepared)
    missing_words = tuple(w for w in content if w not in joined
                          and not any(term_grounded(w, p, aliases, forms=True)
                                      or _abbreviated(w, p) for p in prepared))
    found = Ungrounded(missing_names, missing_numbers, missing_words, len(content))
    if paraphrase and not found.words_ok():
        return paraphrased(found, passages)
    return found


def _names_missing(found: Sequence[str], passages: Sequence[Evidence],
                   aliases: Aliases) -> list[str]:
    """The names no passage holds (as written, an alias, initials or a demonym; a
    possessive ending aside: "GPL's" is the GPL)."""
    return [n for n in found if not any(
        term_grounded(base, p, aliases) or _demonym(base, p)
        or _abbreviated(base, p, name=True) for p in passages
        for base in dict.fromkeys((n, without_possessive(n))))]


def _abbreviated(term: str, passage: Evidence, name: bool = False) -> bool:
    """``term`` abbreviates passage words: their initials, or (content words) a clipped
    long word."""
    if name:
        return term.isupper() and initials_in(term, passage.words)
    return initials_in(term, passage.words) or clipped_in(term, passage.words)


def paraphrased(found: Ungrounded, passages: Sequence[str]) -> Ungrounded:
    """``found`` with the content words a passage phrase paraphrases moved out of ``words``."""
    from dataclasses import replace

    from irforge.check.semantic import WORD_SIMILARITY, closest_phrase

    texts = [p for p in passages if p]
    near = tuple(w for w in found.words if closest_phrase(w, texts) >= WORD_SIMILARITY)
    return replace(found, words=tuple(w for w in found.words if w not in near),
                   paraphrased=near)


def _demonym(name: str, passage: Evidence) -> bool:
    """An adjective of a place the passage names: 'English' for England."""
    lower = name.lower()
    for suffix in _DEMONYM_SUFFIXES:
        if lower.endswith(suffix) and len(lower) - len(suffix) >= 4:
            base = lower[:-len(suffix)]
            stem_ = base[:max(4, len(base) - 1)]
            return re.search(rf"\b{re.escape(stem_)}[a-z]*\b", passage.flat) is not None
    return False


def _with_bounds(text: str) -> list[tuple[Quantity, str | None]]:
    """Each number of ``text`` with the bound word before it ('between', 'more than'...)."""
    out: list[tuple[Quantity, str | None]] = []
    position = 0
    previous: str | None = None
    for quantity in quantities(text):
        at = text.find(quantity.written, position)
        before = text[max(0, position if at >= 0 else 0):at if at >= 0 else position]
        match = _BOUND.search(text[max(0, (at if at >= 0 else position) - 20):
                                   at if at >= 0 else position])
        bound = match.group(1).lower() if match else None
        if bound is None and previous == "between" and re.fullmatch(r"\s*and\s*", before):
            bound = "between-upper"
        out.append((quantity, bound))
        previous = bound
        position = at + len(quantity.written) if at >= 0 else position
    return out


def _satisfied(bound: Quantity, word: str, numbers: Sequence[Quantity]) -> bool:
    """Whether a passage number of the same kind meets the bound."""
    for other in numbers:
        if bound.dimension != other.dimension and bound.dimension is not None:
            continue  # a bound with a unit needs a passage number of that unit's kind
        value, limit = other.base, bound.base
        if word in _LOWER_BOUNDS and value >= limit:
            return True
        if word not in _LOWER_BOUNDS and word != "between-upper" and value <= limit:
            return True
        if word == "between-upper" and value <= limit:
            return True
    return False


def texts(docs: Iterable) -> list[str]:
    """Each passage as grounding reads it: title and text."""
    return [f"{doc.title}\n{doc.text}" if doc.title else doc.text for doc in docs]


@validator("grounding.conditions")
def check_conditions(case: Case, context: Context) -> Iterator[Finding]:
    """Each MultiConIR condition phrase occurs in its condition sentence."""
    phrases, sentences = case.meta.get("condition_phrases"), case.meta.get("conditions")
    if not isinstance(phrases, list) or not isinstance(sentences, list):
        return
    for number, (phrase, sentence) in enumerate(zip(phrases, sentences, strict=False), start=1):
        problem = ungrounded(str(phrase), [str(sentence)], context.aliases).problem()
        if problem:
            yield Finding("grounding.conditions", f"condition_phrases {number}",
                          f"condition {number} {phrase!r} is not in its sentence: {problem}",
                          "shorten the condition sentence without inventing words")


@validator("grounding.keyword")
def check_keyword(case: Case, context: Context) -> Iterator[Finding]:
    """An InfoSearch keyword instruction's keyword occurs in the document it selects."""
    if case.meta.get("dimension") != "keyword":
        return
    keyword = str(case.meta.get("condition", ""))
    gold = context.docs.get(str(case.meta.get("gold_doc_id", "")))
    if gold is None or not keyword.strip():
        return
    passage = evidence(f"{gold.title}\n{gold.text}")
    if not all(term_grounded(w, passage, context.aliases) for w in keyword.split()):
        yield Finding("grounding.keyword", "condition", f"keyword {keyword!r} is not in the "
                      f"document it selects ({gold.doc_id})", "pick a keyword of that document")
