"""Declared query forms: one :class:`QueryForm` per style a generation step may ask for.

A form (keyword, question, long persona request, supported or refuted claim, instructed,
reversed, logical) is declared once in ``forms.yaml``: the instruction a prompt shows, its
worked example, the shape test a query of the form passes, its word bounds, how its words
must be grounded and a claim's stance. Steps ask for a form by name and record it on each
query (``query_form``); ``irforge check``'s form and grounding rules read the same
declaration, so a validator accepts exactly what the prompt asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

FORMS_FILE = Path(__file__).with_name("forms.yaml")

_OPENERS = (
    "what which who whom whose when where why how is are was were do does did can could "
    "should would will shall may might must has have had")
QUESTION_OPENERS = frozenset(_OPENERS.split())
#: openers that also start a subordinate clause of a statement ("When X, Y.")
CLAUSE_OPENERS = frozenset({"when", "where"})
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’./-]*")


def _first_word(text: str) -> str:
    found = re.findall(r"[A-Za-z']+", text.lower())
    return found[0] if found else ""


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split after . ! ? before a capital or digit)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def is_question(text: str) -> bool:
    """A question: ends with '?' or opens with a question word or an auxiliary verb."""
    stripped = text.strip()
    return stripped.endswith("?") or _first_word(stripped) in QUESTION_OPENERS


def is_claim(text: str) -> bool:
    """A statement: no question mark at the end, and no question opener, except 'When'
    or 'Where' opening a clause that a comma closes ("When CO2 is injected, ...")."""
    stripped = text.strip()
    if not stripped or stripped.endswith("?"):
        return False
    first = _first_word(stripped)
    return first not in QUESTION_OPENERS or (first in CLAUSE_OPENERS and "," in stripped)


def is_keyword_query(text: str) -> bool:
    """Search-box words: at most one sentence, not a statement closed by a full stop."""
    stripped = text.strip()
    return bool(stripped) and len(sentences(stripped)) == 1 and not stripped.endswith(".")


def is_request(text: str) -> bool:
    """A person's request in context: a question sentence, or several sentences (context,
    then what they want to know)."""
    parts = sentences(text)
    return any(is_question(part) for part in parts) or len(parts) >= 2


def instructed_parts(text: str) -> tuple[str, str]:
    """(core query, instruction) of an instructed query: the instruction is its last
    sentence, the core query every sentence before it (any number, any punctuation)."""
    parts = sentences(text)
    if len(parts) < 2:
        return " ".join(parts), ""
    return " ".join(parts[:-1]), parts[-1]


#: an instruction that only allows what it names ("... is fine by me", "I don't mind ..."):
#: it narrows nothing, so documents that do not meet it stay relevant
_PERMITS = re.compile(
    r"\b(?:(?:is|are|'s|'re|would be|will be|will do|seems?)\s+(?:\w+\s+)?"
    r"(?:fine|ok|okay|alright|all right|acceptable|welcome|good enough)"
    r"|(?:don't|do not|wouldn't|would not)\s+mind|works? for me|no problem with"
    # a preference is no requirement either: a document without it still serves
    r"|suits? me|would suit|works? best|(?:would be|is|are|'s|'re)\s+(?:\w+\s+)?"
    r"(?:ideal|preferable|preferred|nicer?|great|perfect|lovely)"
    r"|(?:i'd|i would|i'll|i)\s+(?:\w+\s+)?(?:prefer|rather)|preferably|ideally"
    r"|if possible)\b",
    re.IGNORECASE)
_RESTRICTS = re.compile(r"\b(?:only|solely|exclusively|nothing but|must|required?)\b",
                        re.IGNORECASE)


def permits_only(instruction: str) -> bool:
    """Whether an instruction sentence grants a permission ("expert write-ups are fine") or
    states a preference ("... would be ideal") instead of a requirement ("only expert
    write-ups, please")."""
    return bool(_PERMITS.search(instruction)) and not _RESTRICTS.search(instruction)


def is_instructed(text: str) -> bool:
    """A core query (one or more sentences), then an instruction sentence of 2+ words."""
    core, instruction = instructed_parts(text)
    return bool(core) and word_count(instruction) >= 2


def _repeats_core(text: str, core: str) -> bool:
    """The last sentence of ``text`` is a sentence of ``core``: no instruction follows."""
    flat = [" ".join(_WORD.findall(part.lower())) for part in sentences(core)]
    return bool(core.strip()) and " ".join(
        _WORD.findall(instructed_parts(text)[1].lower())) in flat


#: JSON-schema pattern pieces of the instructed form, for constrained decoders: the core
#: query may hold several sentences and any punctuation ("?", "$2.50", "e.g.") but a quote,
#: backslash or line break, and ends on a word, not on doubled punctuation ("website??");
#: the instruction is one sentence with no sentence end inside
CORE_TEXT = r'[^"\\\n]*'
_CORE_END = r'[^"\\\n.?! ]'
INSTRUCTION_TEXT = r'[^"\\.?!\n]*'


def instructed_pattern(core_words: str, condition: str, cue: str = "") -> str:
    """The instructed form as a pattern: a core query holding one of ``core_words`` (a regex
    group), a sentence end, then the instruction naming ``condition`` (after ``cue``, a
    negation group, for a reversal)."""
    return (f"^{CORE_TEXT}{core_words}(?:{CORE_TEXT}{_CORE_END})?[.?!] "
            f"{INSTRUCTION_TEXT}{cue}{condition}{INSTRUCTION_TEXT}[.?!]$")


#: shape name -> the test a query of that shape passes
SHAPES: dict[str, Callable[[str], bool]] = {
    "keyword": is_keyword_query,
    "question": is_question,
    "claim": is_claim,
    "long": is_request,
    "instructed": is_instructed,
    "any": lambda text: bool(text.strip()),
}
GROUNDINGS = ("strict", "persona", "refuted", "core")


@dataclass(frozen=True)
class QueryForm:
    """One declared query form: prompt instruction and example, shape, bounds, grounding."""

    name: str
    shape: str
    grounding: str
    describes: str
    instruction: str
    example: str
    min_words: int
    max_words: int
    stance: str | None = None
    #: an instructed form: the most words its instruction adds to its core query (the
    #: query's bound is its core's length plus these)
    instruction_words: int | None = None

    def word_bounds(self, asked: str = "", core: str = "") -> tuple[int, int]:
        """The fewest and most words a query of this form may have: widened to the length
        its prompt asked for (``asked``); an instructed query's most is its ``core``'s
        words plus the instruction's budget."""
        low, high = self.min_words, self.max_words
        if asked:
            asked_low, asked_high = word_range(asked)
            low, high = min(low, asked_low), max(high, asked_high)
        if core.strip() and self.instruction_words is not None:
            high = word_count(core) + self.instruction_words
        return low, high

    def problem(self, text: str, asked: str = "", core: str = "") -> str | None:
        """Why ``text`` is not a query of this form (None: it is one): its shape, then its
        length (:meth:`length_problem`). ``core`` is an instructed query's core query: the
        instruction is not one of its sentences."""
        if not SHAPES[self.shape](text) or (self.shape == "instructed" and _repeats_core(
                text, core)):
            return f"is not {self.describes}"
        if self.shape == "instructed" and permits_only(instructed_parts(text)[1]):
            return (f"is not {self.describes}: its instruction only permits or prefers "
                    "(\"... is fine\", \"... would be ideal\"), it does not require")
        return self.length_problem(text, asked, core)

    def length_problem(self, text: str, asked: str = "", core: str = "") -> str | None:
        """Why ``text`` has too few or too many words for this form (None: it fits).
        ``asked`` is the length its prompt asked for ("at least 50 words"): a length the
        prompt asked for is never a reason to reject, so the bounds widen to take it in."""
        low, high = self.word_bounds(asked, core)
        count = word_count(text)
        if low <= count <= high:
            return None
        allowed = f"{low} to {high}" if high < 10**6 else f"at least {low}"
        why = f" (asked: {asked})" if asked else ""
        if core.strip() and self.instruction_words is not None:
            why = (f" (its core query's {word_count(core)} words and at most "
                   f"{self.instruction_words} for the instruction)")
        return f"has {count} words; the {self.name} form takes {allowed}{why}"


_BOUND_WORDS = re.compile(r"(fewer than|less than|at most|at least|more than)?\s*(\d+)"
                          r"(?:\s*(?:to|-)\s*(\d+))?\s*words")


def word_range(length: str) -> tuple[int, int]:
    """The word range a query-length attribute asks for ("5 to 20 words" -> (5, 20),
    "at least 50 words" -> (50, 10**6), "fewer than 10 words" -> (1, 9))."""
    match = _BOUND_WORDS.search(length.lower())
    if not match:
        return 1, 10**6
    bound, first, second = match.group(1), int(match.group(2)), match.group(3)
    if second:
        return first, int(second)
    if bound in ("fewer than", "less than"):
        return 1, first - 1
    if bound == "at most":
        return 1, first
    if bound == "more than":
        return first + 1, 10**6
    return (first, 10**6) if bound == "at least" else (first, first)


def _form(name: str, body: Mapping[str, object]) -> QueryForm:
    low, high = body.get("words", [1, 400])  # type: ignore[misc]
    shape, grounding = str(body["shape"]), str(body["grounding"])
    if shape not in SHAPES or grounding not in GROUNDINGS:
        raise ValueError(f"{FORMS_FILE}: form {name!r}: unknown shape {shape!r} or grounding "
                         f"{grounding!r} (shapes: {sorted(SHAPES)}; groundings: {GROUNDINGS})")
    stance, added = body.get("stance"), body.get("instruction_words")
    return QueryForm(name, shape, grounding, " ".join(str(body["describes"]).split()),
                     " ".join(str(body["instruction"]).split()),
                     " ".join(str(body["example"]).split()), int(low), int(high),
                     str(stance) if stance else None,
                     int(str(added)) if added is not None else None)


@lru_cache(maxsize=1)
def query_forms() -> dict[str, QueryForm]:
    """Every declared form by name, read once from ``forms.yaml``."""
    import yaml

    data = yaml.safe_load(FORMS_FILE.read_text(encoding="utf-8"))
    return {str(name): _form(str(name), body) for name, body in data.items()}


def query_form(name: str) -> QueryForm:
    """The declared form ``name``; an unknown name lists the known ones."""
    forms = query_forms()
    if name not in forms:
        raise KeyError(f"unknown query form {name!r}; declared forms: {', '.join(forms)}")
    return forms[name]


def form_metadata(form: QueryForm) -> dict[str, str]:
    """What a written query records of the form it was asked for: the name, and a claim's
    stance towards its passage."""
    return {"query_form": form.name, **({"stance": form.stance} if form.stance else {})}


#: a query's form keys (form_metadata) -> the keys an instructed query records them under
#: for its core query (the core keeps its own form: a refuted claim, a persona request)
CORE_FORM_KEYS = {"query_form": "core_form", "stance": "core_stance"}


def core_form_metadata(core: Mapping[str, object]) -> dict[str, str]:
    """What an instructed query records of its core query's form, from the core's own
    metadata (``core_form``, ``core_stance``); empty when the core records none."""
    return {ours: str(core[key]) for key, ours in CORE_FORM_KEYS.items() if core.get(key)}


def core_form(meta: Mapping[str, object]) -> dict[str, str]:
    """The core query's form metadata (``query_form``, ``stance``) an instructed query
    records (:func:`core_form_metadata` read back)."""
    return {key: str(meta[ours]) for key, ours in CORE_FORM_KEYS.items() if meta.get(ours)}
