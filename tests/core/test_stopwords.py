"""One stopword module: every rule's word list comes from irforge/core/stopwords.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import irforge
from irforge.core.errors import IrforgeError
from irforge.core.stopwords import ENGLISH, FILLERS, REQUEST_WORDS, VAGUE_TERMS, stopwords

PACKAGE = Path(irforge.__file__).resolve().parent


def test_english_is_the_list_and_the_named_sets_relate_to_it() -> None:
    assert stopwords("en") is ENGLISH and stopwords("EN") is ENGLISH
    assert FILLERS < ENGLISH  # the duplicate key drops only words of the list
    assert not REQUEST_WORDS & ENGLISH and not VAGUE_TERMS & ENGLISH
    # words that change what a query asks are in the list but never fillers
    assert {"not", "without", "before", "after", "when", "why"} <= ENGLISH - FILLERS


def test_a_language_without_a_list_is_a_clear_error() -> None:
    with pytest.raises(IrforgeError, match=r"no stopword list for language 'xx'.*en"):
        stopwords("xx")


#: punctuation a sentence has and a whitespace-separated word list does not
_PROSE = re.compile(r"[:;,.!?]\s")


def _word_lists(path: Path) -> list[tuple[int, int]]:
    """(line, size) of each literal in ``path`` that reads as a stopword list: a set/tuple/list
    of strings or one long string, mostly words of the English list."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        words: list[str] = []
        if isinstance(node, ast.Set | ast.Tuple | ast.List):
            words = [e.value for e in node.elts if isinstance(e, ast.Constant)
                     and isinstance(e.value, str)]
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and not _PROSE.search(node.value)):  # a message is prose, not a list
            words = node.value.split()
        common = [w for w in words if w in ENGLISH]
        if len(common) >= 12 and len(common) >= 0.6 * len(words):
            found.append((node.lineno, len(words)))
    return found


#: word lists that are not stopword lists, though made of common words (module -> why)
NOT_STOPWORDS = {
    # the words a question opens with: a question is recognised by them, nothing is dropped
    "prompts/forms.py": "question openers",
    # words that open a capitalised run without being part of the name ("The", "In"); kept
    # narrow on purpose: "May", "Will" and "Most" start names in the passages
    "corpus/entities.py": "leading words of a name",
    # pronouns and demonstratives that point back: a condition opening with one is joined to
    # the sentence naming its referent, nothing is dropped
    "check/referents.py": "words that point back",
}


def test_no_module_but_core_stopwords_holds_a_stopword_list() -> None:
    """Seven lists drifted apart (gates, check, audits, controls, multicon, the domain
    profile, instructions); a rule needing other words names a set of core/stopwords.py."""
    own = PACKAGE / "core" / "stopwords.py"
    lists = {name: hits for path in sorted(PACKAGE.rglob("*.py"))
             if path != own and (hits := _word_lists(path))
             and (name := str(path.relative_to(PACKAGE).as_posix())) not in NOT_STOPWORDS}
    assert not lists, lists
    for name in NOT_STOPWORDS:  # each exception is still there (else drop it)
        assert _word_lists(PACKAGE / name), name
    assert _word_lists(own)  # the detector sees a list where there is one


def test_the_rules_use_the_one_list() -> None:
    from irforge.audits.data import STOPWORDS as AUDIT
    from irforge.check.text import STOPWORDS as CHECK
    from irforge.generators.domain_profile import STOPWORDS as DOMAIN
    from irforge.generators.instructions.text import STOPWORDS as INSTRUCTIONS

    assert AUDIT is ENGLISH and INSTRUCTIONS is ENGLISH
    assert CHECK == ENGLISH | REQUEST_WORDS and DOMAIN == ENGLISH | VAGUE_TERMS
