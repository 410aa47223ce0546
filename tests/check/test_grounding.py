"""Grounding by word forms a stemmer misses, and numbers across unit systems: each valid
paraphrase passes and its near miss is still rejected."""

from __future__ import annotations

import pytest

from irforge.check.aliases import Aliases
from irforge.check.grounding import evidence, term_grounded, ungrounded
from irforge.check.suite import Case, Context, case_fields, validate
from irforge.check.text import content_words
from irforge.core.records import Doc, Query

PRIZE = Doc("prize", "The novelist Mara Quill won the Harbour Prize in 2004. Her children "
            "kept bees on the island, and she hung the medal in the kitchen.", "Mara Quill")
DIPOLE = Doc("dipole", "Each leg of a 40 metre dipole is about 10 metres long. A dipole hung "
             "lower than a quarter wavelength sends its signal straight up.", "Dipoles")
KILN = Doc("kiln", "Fire slowly below 600 °C so that trapped water can escape.", "Bisque")
DOCS = {d.doc_id: d for d in (PRIZE, DIPOLE, KILN)}


def grounding(text: str, doc: Doc) -> set[str]:
    """The word-level rules: a small model's (no own-wording rule: test_own_wording.py)."""
    query = Query("q", text, {})
    context = Context(docs=DOCS, language="en", profile="small")
    found = validate(Case(query, case_fields(query), (doc,)), context, only=["grounding.query"])
    return {f.detail for f in found}


@pytest.mark.parametrize(("text", "doc"), [
    ("Was Mara Quill a Harbour Prize winner?", PRIZE),
    ("Did the Quill child keep bees?", PRIZE),
    ("Where does the beekeeper hang her medal?", PRIZE),
    ("What happens if I hang my dipole too low?", DIPOLE),
    ("Does a 40 m dipole need legs of roughly 33 feet?", DIPOLE),
    ("Why fire slowly below 1112 °F?", KILN),
])
def test_valid_paraphrases_by_irregular_derived_and_converted_forms_pass(text, doc):
    assert grounding(text, doc) == set()


@pytest.mark.parametrize(("text", "doc", "missing"), [
    ("Did the Quill children sell honey at the market?", PRIZE, "3 of 4 content words"),
    ("Where does the bookkeeper trade her honey?", PRIZE, "bookkeeper"),
    ("Does a 40 m dipole need legs of 40 feet?", DIPOLE, "'40 feet'"),
    ("Why fire slowly below 600 °F?", KILN, "'600 °f'"),
    ("Who won the Harbour Prize in 2006?", PRIZE, "'2006'"),
])
def test_near_misses_stay_rejected(text, doc, missing):
    details = grounding(text, doc)
    assert details and missing in " ".join(details), details


def test_forms_apply_to_content_words_never_to_names():
    passage = evidence("We walked through the park and the corn field.")
    assert term_grounded("parks", passage, Aliases(), forms=True)
    assert not term_grounded("Parker", passage, Aliases())  # a name: no suffix stripped
    assert not term_grounded("corner", passage, Aliases(), forms=True)
    assert ungrounded("Is it near Parker Field?", [passage.text], Aliases()).names == ("Parker",)


def test_contractions_of_function_words_are_no_content_words():
    assert content_words("What's the 2m offset, and why won't it open?") == ["offset", "open"]


def test_open_and_hyphenated_compounds_ground_on_the_closed_word():
    sign = Doc("sign", "Give your callsign at the start of every contact.", "Callsigns")
    assert grounding("When do I give my call sign?", sign) == set()
    assert grounding("When do I give my call-sign?", sign) == set()
    assert grounding("When do I give my call back number?", sign)  # "callback" is not there


CONSOLES = Doc("consoles", "You switch between them by pressing Left Alt-F1 through Left "
               "Alt-F6. Use as much swap as you have system memory, up to 64MB.", "Shells")


@pytest.mark.parametrize(("text", "grounded"), [
    ("switch shells with Left Alt-F1 to F6", True),  # F1 and F6 are written in Alt-F1, Alt-F6
    ("switch shells with Left Alt-F7", False),  # names stay strict: F7 is not in the passage
    ("swap equal to RAM, max 64MB", False),  # an abbreviation the passage never uses
    ("swap equal to system memory, max 64MB", True),
])
def test_a_name_may_be_part_of_a_hyphenated_passage_word(text: str, grounded: bool) -> None:
    found = ungrounded(text, [CONSOLES.text], Aliases())
    assert (found.problem() is None) is grounded, found
