"""Named things of a text, extracted whole: names, numbers with their units, fractions.

Plain rules over a tokenizer that keeps what a reader sees as one thing: ``U.S.`` and
``e.g.`` (dotted abbreviations), ``18F`` and ``3M`` (names that start with a digit),
``1/2``, ``1 1/2`` and ``½`` (fractions), ``1,000.5`` (grouped decimals), ``$20``, ``45%``.

- A **name** is a run of capitalised tokens (``18F Handbook``, ``Bank of England``,
  ``U.S. Navy``), joined by ``of``/``of the``/``de``/``van``/... between capitalised tokens.
  A leading function word (``The``, ``In``) is dropped; the pronoun ``I`` is never part of a
  name; a run longer than :data:`MAX_NAME_WORDS` is a run of titles, not one name, and is not
  kept. A single capitalised word that opens a sentence counts only if it also appears
  capitalised inside a sentence.
- A **quantity** is a number with the unit after it (``1/2 cup``, ``200 g``, ``3.5 GHz``,
  ``10 minutes``); a **number** is a number without a known unit (``1902``, ``45%``).

No model is loaded (docs/corpus.md, "Entities", says why no library is used).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

MAX_NAME_WORDS = 6
_FRACTIONS = "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
_NUMBER = (rf"[$€£¥]?(?:\d+\s+\d+/\d+|\d+/\d+|\d*[{_FRACTIONS}]|\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?"
           rf"|\d+(?:\.\d+)?)(?:\s?%)?")
_TOKEN = re.compile(
    r"(?P<abbr>(?:[A-Za-z]\.){2,})"
    rf"|(?P<number>{_NUMBER})(?![\w/])"
    r"|(?P<word>\d+[A-Za-z][\w'’&-]*|[^\W\d_][\w'’&-]*(?:/[^\W\d_][\w'’&-]*)*)")
_CONNECTORS = frozenset({"of", "de", "la", "le", "von", "van", "del", "der", "du", "da", "di",
                         "&"})
_NOT_NAMES = frozenset({"a", "an", "the", "in", "on", "at", "it", "he", "she", "they", "this",
                        "that", "his", "her", "its", "their", "when", "after", "before", "as",
                        "but", "and", "or", "if", "while", "there", "then", "by", "for", "i",
                        "we", "you", "our", "your", "these", "those", "to", "of", "with"})
_UNIT_WORDS = """
    cup cups tbsp tsp tablespoon tablespoons teaspoon teaspoons pinch pinches clove cloves
    g kg mg µg gram grams kilogram kilograms milligram milligrams lb lbs pound pounds oz ounce
    ounces ml l litre litres liter liters quart quarts pint pints gallon gallons
    mm cm m km meter meters metre metres kilometer kilometers kilometre kilometres mile miles
    ft foot feet inch inches yard yards mph kph kmh
    s sec secs second seconds min mins minute minutes h hr hrs hour hours day days week weeks
    month months year years decade decades century centuries
    b kb mb gb tb pb bit bits byte bytes kbps mbps gbps hz khz mhz ghz
    w kw mw gw kwh mwh v mv kv a ma mah ohm ohms °c °f c f k
    percent dollars dollar euros euro cents cent people persons times pages page
    servings serving slices slice pieces piece degrees degree acres acre hectares ha
"""
UNITS = frozenset(_UNIT_WORDS.split())
_SENTENCE_OPEN = re.compile(r"(?:^|[.!?:;]\s*[\"'“‘(\[]?|\n\s*)$")


@dataclass(frozen=True, slots=True)
class Entity:
    """One thing named in a text: its ``text``, ``kind`` (name, quantity, number) and span."""

    text: str
    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    kind: str
    start: int
    end: int

    @property
    def capitalised(self) -> bool:
        if self.kind == "abbr":
            return self.text[0].isupper()
        if self.kind != "word":
            return False
        if self.text[0].isdigit():
            return any(ch.isupper() for ch in self.text)  # 18F, 3M; not 10th
        return self.text[0].isupper() and self.text != "I"


def _tokens(text: str) -> list[_Token]:
    return [_Token(m.group(0), m.lastgroup or "word", m.start(), m.end())
            for m in _TOKEN.finditer(text)]


def _opens_sentence(text: str, start: int) -> bool:
    return bool(_SENTENCE_OPEN.search(text[max(0, start - 4):start]))


def _adjacent(text: str, left: _Token, right: _Token) -> bool:
    """Two tokens separated by spaces only (no comma, full stop or line break)."""
    gap = text[left.end:right.start]
    return not gap.strip() and "\n" not in gap


def _names(text: str, tokens: list[_Token]) -> Iterable[tuple[Entity, bool]]:
    """Name runs with whether each is a lone sentence-opening word."""
    index = 0
    while index < len(tokens):
        if not tokens[index].capitalised:
            index += 1
            continue
        run = [tokens[index]]
        index += 1
        while index < len(tokens) and _adjacent(text, run[-1], tokens[index]):
            token = tokens[index]
            if token.capitalised:
                run.append(token)
                index += 1
            elif token.text.lower() in _CONNECTORS:
                # 'of' or 'of the' between capitalised words: Bank of England, Isle of the Dead
                joined = [token]
                if (index + 1 < len(tokens) and tokens[index + 1].text == "the"
                        and _adjacent(text, token, tokens[index + 1])):
                    joined.append(tokens[index + 1])
                after = index + len(joined)
                if (after < len(tokens) and tokens[after].capitalised
                        and _adjacent(text, joined[-1], tokens[after])):
                    run += [*joined, tokens[after]]
                    index = after + 1
                else:
                    break
            else:
                break
        while run and run[0].text.lower() in _NOT_NAMES:
            run = run[1:]
        while run and run[-1].text.lower() in _CONNECTORS:
            run = run[:-1]
        if not run or len(run) > MAX_NAME_WORDS:
            continue
        entity = Entity(text[run[0].start:run[-1].end], "name", run[0].start, run[-1].end)
        yield entity, len(run) == 1 and _opens_sentence(text, run[0].start)


def _numbers(text: str, tokens: list[_Token]) -> Iterable[Entity]:
    for position, token in enumerate(tokens):
        if token.kind != "number":
            continue
        after = tokens[position + 1] if position + 1 < len(tokens) else None
        if (after is not None and after.kind == "word" and after.text.lower() in UNITS
                and _adjacent(text, token, after) and not token.text.endswith("%")):
            yield Entity(text[token.start:after.end], "quantity", token.start, after.end)
        else:
            yield Entity(token.text, "number", token.start, token.end)


def entities(text: str) -> list[Entity]:
    """The names, quantities and numbers of ``text`` in order of appearance (a lone
    sentence-opening capitalised word only when it is also capitalised mid-sentence)."""
    tokens = _tokens(text)
    numbers = list(_numbers(text, tokens))
    units = {(entity.start, entity.end) for entity in numbers}
    names = [(entity, opening) for entity, opening in _names(text, tokens)
             if not any(start <= entity.start < end for start, end in units)]
    inside = {entity.text for entity, opening in names if not opening}
    found = [entity for entity, opening in names if not opening or entity.text in inside]
    found += numbers
    return sorted(found, key=lambda entity: (entity.start, -entity.end))


def entity_choices(texts: Sequence[str], keep: Callable[[str], bool] | None = None,
                   limit: int = 60) -> tuple[str, ...]:
    """The distinct entity texts of ``texts`` in order (those ``keep`` accepts), at most
    ``limit``: what a single-entity answer may be."""
    out: dict[str, None] = {}
    for text in texts:
        for entity in entities(text):
            if keep is None or keep(entity.text):
                out.setdefault(entity.text, None)
    return tuple(out)[:limit]
