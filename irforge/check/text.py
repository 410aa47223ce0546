"""Text normalisation shared by the validators: words, stems, names, numbers with units.

Pure functions. Stems come from the Snowball stemmer the BM25 analyzer uses (PyStemmer, the
``eval`` extra), so "renewed" and "renewal" meet; numbers are read with their unit, so
"25 to 30 grams" and "25 to 30 mg/L" stay different quantities.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from irforge.core.stopwords import ENGLISH, REQUEST_WORDS

WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
TOKEN = re.compile(r"\d+(?:[.,]\d+)*[A-Za-z]*|[A-Za-z]+(?:['’-][A-Za-z]+)*|[%°]|/[A-Za-z]+")

#: list markers ("1. ", "2) ") of numbered queries: a frame, not numbers of the query
ENUMERATION = re.compile(r"(?:^|(?<=[\s:;]))\d{1,2}[.)](?=\s)")

#: words that carry no content of their own in a search query: the language's stopwords and
#: the frame of a request (irforge/core/stopwords.py)
STOPWORDS = ENGLISH | REQUEST_WORDS
#: stopwords only because instructions use them ("documents that meet the criteria"); in a
#: question they are the predicate ("Where do the two colonies meet?")
PREDICATE_STOPWORDS = frozenset(["meet", "meets", "meeting", "satisfy", "satisfies"])

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
                "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
                "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
                "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
                "hundred": 100, "thousand": 1000, "dozen": 12, "once": 1, "twice": 2}

# unit word -> (dimension, factor to the dimension's base unit)
UNITS: dict[str, tuple[str, float]] = {
    **{u: ("mass", 1e-3) for u in ("mg", "milligram", "milligrams")},
    **{u: ("mass", 1.0) for u in ("g", "gram", "grams", "gramme", "grammes")},
    **{u: ("mass", 1e3) for u in ("kg", "kilo", "kilos", "kilogram", "kilograms")},
    **{u: ("mass", 453.592) for u in ("lb", "lbs", "pound", "pounds")},
    **{u: ("mass", 28.3495) for u in ("oz", "ounce", "ounces")},
    **{u: ("length", 1e-3) for u in ("mm", "millimetre", "millimetres", "millimeter",
                                      "millimeters")},
    **{u: ("length", 1e-2) for u in ("cm", "centimetre", "centimetres", "centimeter",
                                      "centimeters")},
    **{u: ("length", 1.0) for u in ("m", "metre", "metres", "meter", "meters")},
    **{u: ("length", 1e3) for u in ("km", "kilometre", "kilometres", "kilometer",
                                     "kilometers")},
    **{u: ("length", 0.0254) for u in ("inch", "inches")},
    **{u: ("length", 0.3048) for u in ("ft", "foot", "feet")},
    **{u: ("length", 0.9144) for u in ("yd", "yard", "yards")},
    **{u: ("length", 1609.34) for u in ("mi", "mile", "miles")},
    **{u: ("volume", 1e-3) for u in ("ml", "millilitre", "millilitres", "milliliter",
                                      "milliliters")},
    **{u: ("volume", 1.0) for u in ("l", "litre", "litres", "liter", "liters")},
    **{u: ("volume", 3.78541) for u in ("gal", "gallon", "gallons")},
    **{u: ("volume", 0.0295735) for u in ("floz",)},
    **{u: ("time", 1.0) for u in ("s", "sec", "secs", "second", "seconds")},
    **{u: ("time", 60.0) for u in ("min", "mins", "minute", "minutes")},
    **{u: ("time", 3600.0) for u in ("h", "hr", "hrs", "hour", "hours")},
    **{u: ("time", 86400.0) for u in ("day", "days")},
    **{u: ("time", 604800.0) for u in ("week", "weeks")},
    **{u: ("time", 2629800.0) for u in ("month", "months")},
    **{u: ("time", 31557600.0) for u in ("year", "years")},
    **{u: ("voltage", 1.0) for u in ("v", "volt", "volts")},
    **{u: ("power", 1.0) for u in ("w", "watt", "watts")},
    **{u: ("power", 1e3) for u in ("kw", "kilowatt", "kilowatts")},
    **{u: ("pressure", 1.0) for u in ("psi",)},
    **{u: ("pressure", 14.5038) for u in ("bar", "bars")},
    **{u: ("torque", 1.0) for u in ("nm",)},
    **{u: ("temperature_c", 1.0) for u in ("c", "°c", "celsius")},
    **{u: ("temperature_f", 1.0) for u in ("f", "°f", "fahrenheit")},
    **{u: ("percent", 1.0) for u in ("%", "percent", "per cent")},
    **{u: ("concentration", 1.0) for u in ("mg/l", "ppm")},
    **{u: ("rate", 1.0) for u in ("rpm",)},
    **{u: ("frequency", 1.0) for u in ("hz", "hertz")},
    **{u: ("frequency", 1e3) for u in ("khz", "kilohertz")},
    **{u: ("frequency", 1e6) for u in ("mhz", "megahertz")},
    **{u: ("frequency", 1e9) for u in ("ghz", "gigahertz")},
    **{u: ("level", 1.0) for u in ("db", "decibel", "decibels")},
}
#: units of the imperial and US systems: a conversion to or from them is compared at the
#: precision the query wrote ("33 feet" for 10 metres), never closer than CONVERSION_SLACK
IMPERIAL = frozenset({"lb", "lbs", "pound", "pounds", "oz", "ounce", "ounces", "inch", "inches",
                      "ft", "foot", "feet", "yd", "yard", "yards", "mi", "mile", "miles", "psi",
                      "gal", "gallon", "gallons", "floz", "f", "°f", "fahrenheit"})
CONVERSION_SLACK = 0.05
_RANGE_WORDS = frozenset({"to", "-", "–", "and", "or"})


@lru_cache(maxsize=1)
def _stemmer():
    from irforge.core.errors import require

    return require("Stemmer", "eval").Stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem of a lower-case word."""
    return str(_stemmer().stemWord(word.lower().replace("’", "'")))


def words(text: str) -> list[str]:
    """Lower-case words (letters only; numbers are read by :func:`quantities`)."""
    return [w.lower().replace("’", "'") for w in WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """Words that carry content: not stopwords, not number words, two letters or more."""
    return [w for w in words(text) if len(w) > 1 and w not in STOPWORDS
            and w not in NUMBER_WORDS and w not in UNITS and not function_contraction(w)]


# function words a contraction may wrap ("won't" -> will, "can't" -> can)
_CONTRACTED = {"wo": "will", "ca": "can", "sha": "shall", "ai": "am"}
_CONTRACTIONS = ("n't", "'s", "'re", "'ve", "'ll", "'d", "'m")


def function_contraction(word: str) -> bool:
    """Whether ``word`` is a contraction of a function word ("what's", "can't", "won't")."""
    lower = word.lower().replace("’", "'")
    for suffix in _CONTRACTIONS:
        if lower.endswith(suffix) and len(lower) > len(suffix):
            base = lower[:-len(suffix)]
            return _CONTRACTED.get(base, base) in STOPWORDS
    return False


def stems(text: str) -> set[str]:
    """Stems of every word of ``text`` (and of each part of a hyphenated word)."""
    out: set[str] = set()
    for word in words(text):
        out.add(stem(word))
        if "-" in word:
            out.update(stem(part) for part in word.split("-") if part)
    return out


@dataclass(frozen=True)
class Quantity:
    """A number as written, its value, and the unit that follows it (if a known one)."""

    written: str
    value: float
    unit: str | None = None

    @property
    def dimension(self) -> str | None:
        return UNITS[self.unit][0] if self.unit else None

    @property
    def base(self) -> float:
        return self.value * (UNITS[self.unit][1] if self.unit else 1.0)

    def __str__(self) -> str:
        return f"{self.written} {self.unit}" if self.unit else self.written


_NUMBER = re.compile(r"(\d+(?:[.,]\d+)*)([A-Za-z]*)")
_ORDINAL_OR_DECADE = frozenset({"s", "st", "nd", "rd", "th"})


def _number(token: str) -> tuple[float, str | None] | None:
    """(value, unit glued to it) of a numeric token ("28mm", "1920s", "2,500"), else None."""
    match = _NUMBER.fullmatch(token)
    if not match:
        return None
    digits, suffix = match.groups()
    plain = digits.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+", digits) else \
        digits.replace(",", ".")
    try:
        value = float(plain)
    except ValueError:
        return None
    suffix = suffix.lower()
    if suffix and suffix not in _ORDINAL_OR_DECADE and suffix not in UNITS:
        return None  # a code such as "700c" or "M8x": compared as a name, not a number
    return value, (suffix if suffix in UNITS else None)


def _unit_at(tokens: list[str], index: int) -> str | None:
    if index >= len(tokens):
        return None
    token = tokens[index].lower()
    if token == "°" and index + 1 < len(tokens) and f"°{tokens[index + 1].lower()}" in UNITS:
        return f"°{tokens[index + 1].lower()}"  # "600 °C": the degree sign is its own token
    if index + 1 < len(tokens) and tokens[index + 1].startswith("/"):
        joined = token + tokens[index + 1].lower()
        if joined in UNITS:
            return joined
    if token == "per" and index + 1 < len(tokens) and tokens[index + 1].lower() == "cent":
        return "percent"
    return token if token in UNITS else None


def quantities(text: str) -> list[Quantity]:
    """Every number of ``text`` (digits or number words) with the unit after it; the unit
    after a range ("25 to 30 mg/L", "3.5-4.8 V") applies to both ends."""
    tokens = TOKEN.findall(text.replace("–", " - ").replace("-", " - "))
    found: list[tuple[int, str, float, str | None]] = []
    for index, token in enumerate(tokens):
        parsed = _number(token)
        if parsed is None and token.lower() in NUMBER_WORDS and token.lower() not in ("one",
                                                                                         "once"):
            parsed = (float(NUMBER_WORDS[token.lower()]), None)
        if parsed is not None:
            found.append((index, token, *parsed))
    out: list[Quantity] = []
    for position, (index, token, value, glued) in enumerate(found):
        unit = _per_litre(tokens, index, glued or _unit_at(tokens, index + 1))
        if unit is None and position + 1 < len(found):
            after = found[position + 1][0]
            between = [t.lower() for t in tokens[index + 1:after]]
            if between and all(t in _RANGE_WORDS for t in between):
                unit = _unit_at(tokens, after + 1)
        out.append(Quantity(token, value, unit))
    return out


_LITRE = frozenset({"litre", "liter", "l"})


def _per_litre(tokens: list[str], index: int, unit: str | None) -> str | None:
    """Milligrams followed closely by "per litre" ("30 milligrams of CO2 per litre") are a
    concentration, as "30 mg/L" is."""
    if unit not in ("mg", "milligram", "milligrams"):
        return unit
    after = [t.lower() for t in tokens[index + 2:index + 8]]
    return "mg/l" if any(a == "per" and b in _LITRE
                         for a, b in itertools.pairwise(after)) else unit


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Equal values in the same dimension (unit conversions included); a bare number
    matches the same number with any unit. Between metric and imperial units (°C and °F
    included) ``a`` may be ``b`` rounded to the digits ``a`` wrote, within CONVERSION_SLACK."""
    if a.dimension and b.dimension:
        temperatures = {a.dimension, b.dimension} == {"temperature_c", "temperature_f"}
        if a.dimension != b.dimension and not temperatures:
            return False
        if (a.unit in IMPERIAL) != (b.unit in IMPERIAL):
            return _rounded_conversion(a, b)
        return abs(a.base - b.base) <= 1e-6 * max(abs(a.base), abs(b.base), 1.0)
    return abs(a.value - b.value) < 1e-9


def _rounded_conversion(a: Quantity, b: Quantity) -> bool:
    """``b`` converted to ``a``'s unit, rounded as ``a`` is written, equals ``a``."""
    if a.dimension == b.dimension:
        converted = b.base / UNITS[a.unit or ""][1]
    elif a.dimension == "temperature_f":
        converted = b.value * 9 / 5 + 32
    else:
        converted = (b.value - 32) * 5 / 9
    digits = a.written.partition(".")[2] if "." in a.written else ""
    decimals = len(re.sub(r"\D.*", "", digits))
    difference = abs(a.value - converted)
    return (difference <= max(0.5 * 10 ** -decimals, 0.025 * abs(a.value))
            and difference <= CONVERSION_SLACK * max(abs(a.value), abs(converted)))


_CAPITAL = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:[-'’][A-Za-z0-9]+)*)\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"“(]\s*)$")


def names(text: str) -> list[str]:
    """Proper names and codes: capitalised words not opening a sentence, acronyms and
    letter-digit codes ("UV", "M8", "SPD-SL"), stopwords excluded."""
    found: list[str] = []
    for match in _CAPITAL.finditer(text):
        token = match.group(1)
        lower = token.lower()
        if lower in STOPWORDS or lower in NUMBER_WORDS or lower in UNITS \
                or function_contraction(lower):  # "I'm", "I'd": a pronoun, not a name
            continue
        is_code = (token.isupper() and len(token) > 1) or any(c.isdigit() for c in token)
        opening = bool(_SENTENCE_START.search(text[:match.start()]))
        if is_code or not opening:
            found.append(token)
    return found


#: a possessive ending ("GPL's", "Debian’s"): not part of the name it follows
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)


def without_possessive(word: str) -> str:
    """``word`` without a possessive ending: "GPL's" -> "GPL", "Debian’s" -> "Debian"."""
    base = _POSSESSIVE.sub("", word)
    return base or word


def normalized(text: str) -> str:
    """Lower-case words and numbers separated by single spaces."""
    return " ".join(t.lower() for t in TOKEN.findall(text))


def initials(phrase: Iterable[str]) -> str:
    """Upper-case initials of the words of a name, function words left out."""
    return "".join(w[0].upper() for w in phrase
                   if w and w.lower() not in {"of", "the", "and", "for", "in", "on", "de"})
