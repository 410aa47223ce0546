"""Grounding by the declared form: real language a capable model writes passes (keyword
queries, personas, refuted claims, formulas and abbreviations spelled out by the passage), and
every near miss stays rejected (unrelated claims, invented names and numbers, a wrong formula)."""

from __future__ import annotations

from typing import Any

import pytest

from irforge.check.suite import Case, Context, case_fields, validate
from irforge.core.records import Doc, Query

SOUP = Doc("soup", "Aljotta is a Maltese fish soup made with garlic, tomatoes and rice. Cooks "
                   "add a handful of fresh marjoram at the end.", "Aljotta")
SALT = Doc("salt", "Aquarium salt is plain sodium chloride without iodine. A dose of one "
                   "tablespoon per 20 litres helps freshwater fish recover from nitrite "
                   "poisoning, and ammonia is toxic above 0.5 parts per million.", "Salt")
SPOT = Doc("spot", "A bare bottom makes it easy to spot white spot, the parasite "
                   "Ichthyophthirius multifiliis, which shows as grains of salt on the fins.",
           "Quarantine")
EGGS = Doc("eggs", "Lower the eggs into boiling water and cook them for ten minutes for a firm "
                   "yolk, or six minutes for a soft one. Cool them in cold water before "
                   "peeling.", "Boiled eggs")
CLOCK = Doc("clock", "Select local time if you will be running another operating system as "
                     "well as Debian. Unix generally keeps GMT time on the system clock.",
            "Configure the Base System")
CORE = Doc("core", "Tomato seedlings grow tall and weak when their grow light hangs too far "
                   "above them; keep it 10 centimetres away.", "Seedlings")
DOCS = {d.doc_id: d for d in (SOUP, SALT, SPOT, EGGS, CLOCK, CORE)}


def findings(text: str, doc: Doc, **meta: Any) -> dict[str, str]:
    query = Query("q", text, meta)
    found = validate(Case(query, case_fields(query), (doc,)), Context(docs=DOCS, language="en"),
                     only=["grounding.query", "form.intent_type"])
    return {f.validator: f.detail for f in found}


@pytest.mark.parametrize(("text", "doc", "form"), [
    ("Aljotta is a traditional Greek fish soup.", SOUP, "claim-refuted"),
    ("Aljotta is a fish soup made with potatoes and rice.", SOUP, "claim-refuted"),
    ("Eggs for a firm yolk boil for three minutes.", EGGS, "claim-refuted"),
    ("When the eggs are boiled, they are cooled in cold water.", EGGS, "claim-supported"),
    ("How much NaCl is dosed per 20 litres?", SALT, "question"),
    ("NH3 toxic level ppm", SALT, "keyword"),
    ("ich on fins", SPOT, "keyword"),
    ("system clock gmt or local time dual boot", CLOCK, "keyword"),
    ("I'm cooking breakfast for my kids and they hate runny yolks, so I don't want the eggs "
     "too mushy. How long should they boil?", EGGS, "long"),
])
def test_real_language_of_the_declared_form_is_grounded(text: str, doc: Doc,
                                                        form: str) -> None:
    stance = {"stance": form.split("-")[1]} if form.startswith("claim") else {}
    assert findings(text, doc, intent="QA", query_form=form, **stance) == {}


@pytest.mark.parametrize(("text", "doc", "form", "missing"), [
    # a claim the passage does not contradict: nothing of it is the passage's
    ("Goldfish need a heater set to 28 degrees.", SOUP, "claim-refuted", "'28'"),
    ("The nitrogen cycle was discovered by Sergei Winogradsky in 1890.", SALT,
     "claim-refuted", "changes one fact"),
    # a supported claim is strict: a changed name is ungrounded
    ("Aljotta is a traditional Greek fish soup.", SOUP, "claim-supported", "'Greek'"),
    # a formula the passage does not spell out
    ("NaOH dose per 20 litres", SALT, "keyword", "'NaOH'"),
    ("How much H2SO4 goes into 20 litres?", SALT, "question", "'H2SO4'"),
    # a persona whose need the passage does not carry, or with an invented number
    ("I'm moving house next month and need to carry my aquarium. How should I pack the "
     "fish for a long car journey?", SALT, "long", "content words"),
    ("I bought a 60 litre tank for my daughter last week. How much salt should I add?",
     SALT, "long", "'60"),
    # an unrelated keyword query
    ("wireless network card driver install", CLOCK, "keyword", "content words"),
])
def test_near_misses_of_each_form_stay_ungrounded(text: str, doc: Doc, form: str,
                                                  missing: str) -> None:
    stance = {"stance": form.split("-")[1]} if form.startswith("claim") else {}
    found = findings(text, doc, intent="QA", query_form=form, **stance)
    assert missing in found.get("grounding.query", ""), found


def test_a_stance_without_a_declared_form_still_grounds_a_refuted_claim() -> None:
    assert findings("Aljotta is a traditional Greek fish soup.", SOUP, intent="FC",
                    stance="refuted") == {}
    assert "grounding.query" in findings("Aljotta is a traditional Greek fish soup.", SOUP,
                                         intent="FC")


def test_an_instructed_query_is_grounded_on_its_core_query() -> None:
    instructed = "tomato seedling light distance. I only want guides for balcony growers."
    assert findings(instructed, CORE, query_form="instructed",
                    core_query="tomato seedling light distance") == {}
    found = findings(instructed, CORE, query_form="instructed",
                     core_query="pepper seedling heat mat temperature")
    assert "grounding.query" in found, found


@pytest.mark.parametrize(("text", "form", "rejected"), [
    ("em vs en dash when use", "keyword", False),
    ("When the eggs are boiled, they are cooled in cold water.", "claim-supported", False),
    ("I have boiled eggs for years and the yolks always turn grey. I'd like to know what "
     "I am doing wrong.", "long", False),
    ("Eggs are cooled in cold water.", "question", True),
    ("Are eggs cooled in cold water?", "claim-supported", True),
    ("The eggs are cooled in cold water.", "keyword", True),
])
def test_form_intent_type_reads_the_declared_form(text: str, form: str,
                                                  rejected: bool) -> None:
    query = Query("q", text, {"intent": "QA", "query_form": form})
    found = validate(Case(query, case_fields(query), (EGGS,)),
                     Context(docs=DOCS, language="en"), only=["form.intent_type"])
    assert bool(found) is rejected, found


_LONG_QUESTION = ("When the eggs come out of the pot and I want the yolks to stay firm for the "
                  "children's lunch boxes the next morning, without the grey ring that my "
                  "mother always warned me about, and without the shells sticking to the white "
                  "when I peel them in a hurry before school, what should I do with the eggs "
                  "straight after boiling them, and why does that step matter so much here?")


@pytest.mark.parametrize(("asked", "rejected"), [
    ("", True),  # 72 words: over the question form's own 60
    ("at least 50 words", False),  # the prompt asked for it: never a reason to reject
    ("5 to 20 words", True),  # neither the form nor the prompt allows 72 words
])
def test_a_length_the_prompt_asked_for_is_never_held_against_the_query(
        asked: str, rejected: bool) -> None:
    meta = {"intent": "QA", "query_form": "question", **({"length": asked} if asked else {})}
    query = Query("q", _LONG_QUESTION, meta)
    found = validate(Case(query, case_fields(query), (EGGS,)),
                     Context(docs=DOCS, language="en"), only=["form.intent_type"])
    assert bool(found) is rejected, found
    if rejected:
        assert "has 72 words" in found[0].detail
