"""The one duplicate rule: when two queries ask the same thing, and the index a run (the
generation gates, :mod:`irforge.steps.gates`) or a folder (``irforge check``) compares each
new query against. ``irforge audit duplicates`` reports exactly the pairs it rejects.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from irforge.check.query_rules import normalized, words
from irforge.core.stopwords import FILLERS

#: two queries whose normalized texts are this similar (difflib ratio) and whose word counts
#: differ by at most one are near duplicates; equal content-word multisets always are
NEAR_DUPLICATE_RATIO = 0.95


def content_key(text: str) -> tuple[str, ...]:
    """Sorted content words with a plural ``s`` dropped: equal keys ask the same thing."""
    return tuple(sorted(w[:-1] if len(w) > 3 and w.endswith("s") else w
                        for w in words(text) if w not in FILLERS))


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
            and matcher.ratio() >= NEAR_DUPLICATE_RATIO
            and _edits_keep_the_words(na.split(), nb.split()))


#: two spellings of one word ("temprature", "temperature"; "colour", "color") are this similar
SPELLING_RATIO = 0.8


def _edits_keep_the_words(a: list[str], b: list[str]) -> bool:
    """Whether every word-level edit from ``a`` to ``b`` is a filler added, dropped or swapped,
    or a respelling: swapping one content word for another ("experts" for "laymen", "women"
    for "men") asks another question, however long the rest that stays the same."""
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        old, new = a[i1:i2], b[j1:j2]
        if op == "equal" or all(word in FILLERS for word in old + new):
            continue
        if op != "replace" or len(old) != len(new) or any(
                difflib.SequenceMatcher(None, x, y).ratio() < SPELLING_RATIO
                for x, y in zip(old, new, strict=True)):
            return False
    return True


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


@dataclass
class DuplicateIndex:
    """The queries admitted so far (normalized text, content words, ends -> who wrote them)."""

    _exact: dict[str, str] = field(default_factory=dict)
    _content: dict[tuple[str, ...], str] = field(default_factory=dict)
    _buckets: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, text: str, origin: str) -> None:
        """Index ``text``; ``origin`` names it in later reasons."""
        self._exact.setdefault(normalized(text), origin)
        if content_key(text):
            self._content.setdefault(content_key(text), origin)
        for key in duplicate_keys(text):
            self._buckets.setdefault(key, []).append((normalized(text), origin))

    def reason(self, query: str) -> str | None:
        """Why ``query`` duplicates an indexed one; None when it is new."""
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
