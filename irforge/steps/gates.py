"""Quality gates every generated query passes, whatever method wrote it (docs/generation.md).

:func:`~irforge.steps.step.run_step` applies them to each step that declares ``queries_of``: a
query is rejected when it is empty or one word, loops (degenerate repetition), is in the wrong
language, equals or sits inside its passage's title, copies its passage, or duplicates
(exactly or nearly) a query already accepted in this run or present in the benchmark folder.
Each check is a pure function returning a reason or None; :class:`QueryGates` keeps the index
of accepted queries that the duplicate gates compare against. Reasons read
``gate <name>: <detail>``; the runner prefixes ``rejected:`` so yield tables group them.

The thresholds are named constants below; they are part of the benchmark's definition of a
usable query and must never be loosened to raise a yield.
"""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from irforge.core.stopwords import FILLERS

# -- thresholds ------------------------------------------------------------------------------

#: a query needs at least this many words (one-word and empty queries are rejected)
MIN_QUERY_WORDS = 2
#: a run of this many consecutive passage words inside a query is a copy, however long the query
COPY_MAX_RUN_WORDS = 12
#: ... and so is a run of at least COPY_MIN_RUN_WORDS words covering this share of the query
COPY_RUN_FRACTION = 0.6
COPY_MIN_RUN_WORDS = 5
#: word n-grams (this n) of the query found in the passage (title + text) ...
COPY_NGRAM = 3
#: ... above this share make the query a patchwork copy (queries of COPY_NGRAM_MIN_WORDS+ words)
COPY_NGRAM_FRACTION = 0.8
COPY_NGRAM_MIN_WORDS = 6
#: two queries whose normalized texts are this similar (difflib ratio) and whose word counts
#: differ by at most one are near duplicates; equal content-word multisets always are
NEAR_DUPLICATE_RATIO = 0.95
#: an n-gram (n <= REPEAT_MAX_N) repeated this many times in a row is a loop ("the the the")
REPEAT_TIMES = 3
REPEAT_MAX_N = 4
#: queries of REPEAT_MIN_WORDS+ words whose distinct words are under this share loop too
REPEAT_MIN_DISTINCT = 0.3
REPEAT_MIN_WORDS = 12
#: the same character this many times in a row ("!!!!!!", "aaaaaa") is degenerate
REPEAT_CHAR_RUN = 6
#: the language gate judges queries of this many words or more ...
LANGUAGE_MIN_WORDS = 4
#: ... and rejects one whose top language is another with at least this probability ...
LANGUAGE_MIN_CONFIDENCE = 0.5
#: ... while the expected language gets less than this probability
LANGUAGE_MAX_EXPECTED = 0.02
DEFAULT_LANGUAGE = "en"

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits)."""
    return _WORD.findall(text.lower())


def normalized(text: str) -> str:
    """The form compared for exact duplicates: lower case, words only, single spaces."""
    return " ".join(words(text))


def content_key(text: str) -> tuple[str, ...]:
    """Sorted content words with a plural ``s`` dropped: equal keys ask the same thing."""
    return tuple(sorted(w[:-1] if len(w) > 3 and w.endswith("s") else w
                        for w in words(text) if w not in FILLERS))


# -- single-query gates (pure) ---------------------------------------------------------------

def length_reason(query: str) -> str | None:
    """Empty or one-word queries."""
    count = len(words(query))
    if count == 0:
        return "gate empty: the query has no words"
    if count < MIN_QUERY_WORDS:
        return f"gate one-word: {query.strip()!r} has {count} word (min {MIN_QUERY_WORDS})"
    return None


def repetition_reason(text: str) -> str | None:
    """Degenerate repetition: an n-gram repeated in a row, too few distinct words, a char run."""
    char_run = re.search(rf"(\S)\1{{{REPEAT_CHAR_RUN - 1},}}", text)
    if char_run:
        return f"gate repetition: character {char_run.group(1)!r} repeated " \
               f"{len(char_run.group())} times"
    tokens = words(text)
    for n in range(1, REPEAT_MAX_N + 1):
        for start in range(len(tokens) - n * REPEAT_TIMES + 1):
            gram = tokens[start:start + n]
            if all(tokens[start + r * n:start + (r + 1) * n] == gram
                   for r in range(1, REPEAT_TIMES)):
                return (f"gate repetition: {' '.join(gram)!r} repeated {REPEAT_TIMES}+ times "
                        "in a row")
    if len(tokens) >= REPEAT_MIN_WORDS and len(set(tokens)) / len(tokens) < REPEAT_MIN_DISTINCT:
        return (f"gate repetition: {len(set(tokens))} distinct words of {len(tokens)} "
                f"(under {REPEAT_MIN_DISTINCT:.0%})")
    return None


def title_reason(query: str, title: str) -> str | None:
    """A query equal to the passage title, or contained in it."""
    q, t = normalized(query), normalized(title)
    if not q or not t:
        return None
    if q == t:
        return "gate title: the query is the passage title"
    if f" {q} " in f" {t} ":
        return f"gate title: the query is part of the passage title {title.strip()!r}"
    return None


def longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest run of consecutive tokens shared by ``a`` and ``b``."""
    best, previous = 0, [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def _ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def copy_reason(query: str, title: str, text: str) -> str | None:
    """A query that copies its passage: a long shared word run, or mostly passage n-grams."""
    q = words(query)
    if not q:
        return None
    run = max(longest_common_run(q, words(text)), longest_common_run(q, words(title)))
    if run >= COPY_MAX_RUN_WORDS:
        return f"gate copy: {run} consecutive words copied from the passage " \
               f"(max {COPY_MAX_RUN_WORDS - 1})"
    if run >= COPY_MIN_RUN_WORDS and run / len(q) >= COPY_RUN_FRACTION:
        return (f"gate copy: {run} of the query's {len(q)} words are one run copied from the "
                f"passage (max {COPY_RUN_FRACTION:.0%})")
    if len(q) >= COPY_NGRAM_MIN_WORDS:
        grams = _ngrams(q, COPY_NGRAM)
        passage = set(_ngrams(words(title), COPY_NGRAM)) | set(_ngrams(words(text), COPY_NGRAM))
        share = sum(1 for g in grams if g in passage) / len(grams)
        if share >= COPY_NGRAM_FRACTION:
            return (f"gate copy: {share:.0%} of the query's word {COPY_NGRAM}-grams occur in "
                    f"the passage (max {COPY_NGRAM_FRACTION:.0%})")
    return None


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """py3langid's identifier with normalised probabilities (its model ships in the wheel)."""
    from irforge.core.errors import require
    from irforge.steps.langid_model import load_identifier

    return load_identifier(require("py3langid.langid", "generators"))


def language_reason(query: str, expected: str | None) -> str | None:
    """A query confidently in another language than ``expected`` (None: no language gate)."""
    if not expected or len(words(query)) < LANGUAGE_MIN_WORDS:
        return None
    ranked = dict(_identifier().rank(query))
    top = max(ranked, key=ranked.__getitem__)
    if top != expected and ranked[top] >= LANGUAGE_MIN_CONFIDENCE \
            and ranked.get(expected, 0.0) < LANGUAGE_MAX_EXPECTED:
        return (f"gate language: the query reads as {top!r} (p={ranked[top]:.2f}), "
                f"expected {expected!r}")
    return None


def corpus_language(texts: Iterable[str], sample: int = 20) -> str:
    """The commonest confidently detected language of the first ``sample`` texts, else 'en'."""
    from collections import Counter

    votes: Counter[str] = Counter()
    for text in list(texts)[:sample]:
        if len(words(text)) >= LANGUAGE_MIN_WORDS:
            ranked = _identifier().rank(text[:2000])
            if ranked[0][1] >= LANGUAGE_MIN_CONFIDENCE:
                votes[str(ranked[0][0])] += 1
    return votes.most_common(1)[0][0] if votes else DEFAULT_LANGUAGE


def near_duplicate(a: str, b: str) -> bool:
    """Whether two queries ask the same thing: same content words, or a tiny textual edit
    that changes no number (queries differing in a year or a count ask different things)."""
    if content_key(a) and content_key(a) == content_key(b):
        return True
    na, nb = normalized(a), normalized(b)
    if abs(len(na.split()) - len(nb.split())) > 1:
        return False
    if sorted(w for w in na.split() if w.isdigit()) != sorted(w for w in nb.split()
                                                              if w.isdigit()):
        return False
    matcher = difflib.SequenceMatcher(None, na, nb, autojunk=False)
    return (matcher.real_quick_ratio() >= NEAR_DUPLICATE_RATIO
            and matcher.quick_ratio() >= NEAR_DUPLICATE_RATIO
            and matcher.ratio() >= NEAR_DUPLICATE_RATIO)


def duplicate_keys(text: str) -> list[str]:
    """The index keys a query is compared under: its first and its last three words (a near
    duplicate is a small edit, so it keeps one end)."""
    tokens = normalized(text).split()
    return ["^" + " ".join(tokens[:3]), "$" + " ".join(tokens[-3:])]


def same_query(a: str, b: str) -> bool:
    """The one duplicate rule (the gates reject it, ``irforge audit duplicates`` reports it):
    the same normalized text, or :func:`near_duplicate`."""
    return normalized(a) == normalized(b) or near_duplicate(a, b)


def duplicate_pairs(texts: Sequence[str]) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of ``texts`` that the duplicate gate would reject as
    each other's duplicate: compared under the same keys (text, content words, ends)."""
    seen: dict[str, list[int]] = {}
    pairs: set[tuple[int, int]] = set()
    for j, text in enumerate(texts):
        keys = ["=" + normalized(text), *duplicate_keys(text)]
        if content_key(text):
            keys.append("#" + " ".join(content_key(text)))
        candidates = {i for key in keys for i in seen.get(key, ())}
        pairs.update((i, j) for i in candidates if same_query(texts[i], text))
        for key in keys:
            seen.setdefault(key, []).append(j)
    return sorted(pairs)


def single_query_reasons(query: str, title: str = "", text: str = "",
                         language: str | None = DEFAULT_LANGUAGE) -> list[str]:
    """Every gate that needs no other query: length, repetition, language, title, copy."""
    short = length_reason(query)
    if short:
        return [short]
    checks = (repetition_reason(query), language_reason(query, language),
              title_reason(query, title), copy_reason(query, title, text))
    return [reason for reason in checks if reason]


# -- the duplicate index ---------------------------------------------------------------------

#: an extra gate: (query, (title, text) of its passage) -> a reason ``gate <name>: ...`` or None
QueryCheck = Callable[[str, tuple[str, str]], "str | None"]


class QueryValidator(Protocol):
    """The validator registry's hook (:mod:`irforge.check.generation`): reasons to reject a
    query, what the validators recorded for it (kept in its metadata) and their settings."""

    def __call__(self, query: str, source: tuple[str, str] | None,
                 metadata: Mapping[str, Any]) -> list[str]: ...

    def recorded(self) -> Mapping[str, Any]:
        """Metadata the last call's validators recorded (``{"target": {...}}``)."""
        ...

    def settings(self) -> Mapping[str, Any]:
        """The settings the validators run with (the manifest's ``validation`` entry)."""
        ...


@dataclass
class QueryGates:
    """The gates of one run: the expected language and the queries admitted so far.

    ``existing`` holds queries already in the benchmark (id -> text) that new ones must not
    duplicate; queries admitted by :meth:`admit` join the index, so a run never accepts two
    queries that ask the same thing. ``checks`` are extra gates (query validators) every
    query passes after the built-in ones: the hook the build runner exposes.
    """

    language: str | None = DEFAULT_LANGUAGE
    existing: Mapping[str, str] = field(default_factory=dict)
    checks: list[QueryCheck] = field(default_factory=list)
    # the validator registry's hook (irforge.check.generation.validating_gates): (query,
    # source (title, text) or None, the query's metadata) -> reasons; generation and
    # ``irforge check`` then apply the same validators
    validate: QueryValidator | None = None
    # check-then-admit is one step under this lock: methods a recipe runs in parallel share
    # the index, and two of them must not both keep the same query
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    # normalized query -> what the validators recorded when it was checked / admitted
    _checked: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)
    _notes: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)
    _exact: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _content: dict[tuple[str, ...], str] = field(default_factory=dict, init=False, repr=False)
    _buckets: dict[str, list[tuple[str, str]]] = field(default_factory=dict, init=False,
                                                       repr=False)

    def __post_init__(self) -> None:
        for query_id, text in self.existing.items():
            self._index(text, f"benchmark query {query_id}")

    def view(self) -> QueryGates:
        """Gates sharing this index, lock and recorded notes but with their own validator
        hook: each method of a recipe run attaches validators over its own passages (and
        target depth) without replacing another method's, while duplicates still count
        across all of them."""
        view = QueryGates(language=self.language, checks=self.checks, validate=self.validate,
                          lock=self.lock)
        view.existing = self.existing
        view._checked, view._notes = self._checked, self._notes
        view._exact, view._content, view._buckets = self._exact, self._content, self._buckets
        return view

    def _index(self, text: str, origin: str) -> None:
        self._exact.setdefault(normalized(text), origin)
        if content_key(text):
            self._content.setdefault(content_key(text), origin)
        for key in duplicate_keys(text):
            self._buckets.setdefault(key, []).append((normalized(text), origin))

    def duplicate_reason(self, query: str) -> str | None:
        """Why ``query`` duplicates an admitted or existing one; None when it is new."""
        norm = normalized(query)
        if norm in self._exact:
            return f"gate duplicate: the same query as {self._exact[norm]}"
        key = content_key(query)
        if key and key in self._content:
            return f"gate near-duplicate: the same content words as {self._content[key]}"
        for bucket in duplicate_keys(query):
            for other, origin in self._buckets.get(bucket, ()):
                if near_duplicate(norm, other):
                    return f"gate near-duplicate: nearly the same text as {origin}"
        return None

    def check(self, queries: Sequence[str], source: tuple[str, str] | None = None,
              metadata: Mapping[str, Any] | None = None) -> list[str]:
        """Reasons to reject ``queries`` (one item's queries), without admitting them;
        ``metadata`` (the query's intent, answer, conditions...) feeds the validators."""
        title, text = source or ("", "")
        reasons: list[str] = []
        for position, query in enumerate(queries):
            own = single_query_reasons(query, title, text, self.language)
            own += [reason for check in self.checks
                    if (reason := check(query, (title, text))) is not None]
            duplicate = self.duplicate_reason(query) or next(
                (f"gate duplicate: repeats query {earlier + 1} of the same item"
                 for earlier, other in enumerate(queries[:position])
                 if same_query(query, other)),
                None)
            reasons.extend([*own, *([duplicate] if duplicate else [])])
            validate = self.validate
            if validate is not None:
                with self.lock:
                    reasons.extend(validate(query, source, metadata or {}))
                    self._checked[normalized(query)] = dict(validate.recorded())
        return reasons

    def admit(self, queries: Sequence[str], origin: str) -> None:
        """Add accepted queries to the index (``origin`` names them in later reasons); what
        the validators recorded when they checked each one is kept for :meth:`notes`."""
        for query in queries:
            self._index(query, origin)
            checked = self._checked.pop(normalized(query), None)
            if checked is not None:
                self._notes[normalized(query)] = checked

    def notes(self, query: str) -> dict[str, Any]:
        """What the validators recorded for an admitted query when they passed it
        (``{"target": {"rank": 2, "ranks": {"bm25": 2}, "k": 5, ...}}``; empty without the
        validator registry). Writers put it in the query's metadata: no second computation."""
        return dict(self._notes.get(normalized(query), {}))

    def validation_settings(self) -> dict[str, Any]:
        """The validator registry's settings (target depth, retrievers...), or empty."""
        return dict(self.validate.settings()) if self.validate is not None else {}

    @classmethod
    def for_benchmark(cls, root: Path | str, language: str | None = DEFAULT_LANGUAGE,
                      keep: Any = None, folders: Iterable[Path] = (),
                      validate: QueryValidator | None = None) -> QueryGates:
        """Gates that know the queries already in the benchmark folder ``root``.

        ``keep(query_id)`` says which existing queries count (default: all); a build that
        rewrites its own queries leaves those out, so a re-run does not reject itself.
        ``folders`` are more benchmark folders of the same collection (a recipe run's other
        method folders): their queries count too, named ``folder/query_id``.
        """
        from irforge.core.bench import Benchmark

        existing: dict[str, str] = {}
        for number, folder in enumerate([Path(root), *folders]):
            bench = Benchmark(folder)
            if not bench.queries_path.exists():
                continue
            prefix = "" if number == 0 else f"{folder.name}/"
            existing.update({prefix + q.query_id: q.text for q in bench.queries()
                             if number or keep is None or keep(q.query_id)})
        return cls(language=language, existing=existing, validate=validate)
