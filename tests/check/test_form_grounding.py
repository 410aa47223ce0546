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


# -- the asker's own details, the document's context, a changed unit (issue 34) ------------

LENTILS = Doc("pulses_2", "Rinse the lentils and simmer them in plenty of water. Brown lentils "
                          "are tender after about 25 minutes; red lentils fall apart in 15.",
              "Cooking pulses", {"doc_id": "pulses", "section": "Cooking pulses > Lentils"})
BEANS = Doc("pulses_1", "Dried beans need soaking overnight before a pressure cooker takes "
                        "them.", "Cooking pulses", {"doc_id": "pulses"})
TIMEZONE = Doc("guide_3", "Select local time if you will be running another operating system as "
                          "well as Debian. Unix generally keeps GMT time on the system clock.",
               "Debian Tutorial", {"doc_id": "guide", "section": "Configure the Woody base"})
KERNEL = Doc("guide_1", "Linux is a free kernel; Debian GNU/Linux is a distribution of it with "
                        "thousands of packages.", "Debian Tutorial", {"doc_id": "guide"})
ROSES = Doc("roses", "Prune roses in late winter, cutting just above an outward-facing bud.",
            "Roses", {"doc_id": "garden"})
CLUB = Doc("club", "Membership is open to anyone who lives in the county. Applicants must be 18 "
                   "or over and pay a yearly fee of 20 pounds.", "Joining the club")
QUIET = Doc("quiet", "Members meet on the village green and bring their own tea.", "Meetings")
CONTEXT_DOCS = {d.doc_id: d for d in (LENTILS, BEANS, TIMEZONE, KERNEL, ROSES, CLUB, QUIET)}


def grounding(text: str, doc: Doc, **meta: Any) -> str:
    """The grounding.query finding of ``text`` against ``doc`` ('' when grounded)."""
    query = Query("q", text, {"intent": "QA", **meta})
    found = validate(Case(query, case_fields(query), (doc,)),
                     Context(docs=CONTEXT_DOCS, language="en"), only=["grounding.query"])
    return found[0].detail if found else ""


@pytest.mark.parametrize("text", [
    "I'm 34, my son is six months old and we live in Canada. How long do I simmer brown "
    "lentils?",
    "I'm 34, my son is six months old, we live in Canada, how long do I simmer brown lentils?",
    "We moved to Toronto in 2019 and my husband only eats red lentils. I'd like to know how "
    "long they take before they fall apart.",
])
def test_the_askers_own_details_need_no_passage(text: str) -> None:
    assert grounding(text, LENTILS, query_form="long") == ""
    # the same details in a question form are the query's own words: strict
    assert grounding(text, LENTILS, query_form="question") != ""


@pytest.mark.parametrize(("text", "missing"), [
    # what is asked names something neither the passage nor its document holds
    ("I'm 34 and we live in Canada. How long do I simmer lentils in a Thermomix?",
     "'Thermomix'"),
    # off-topic: what is asked comes from another document (roses), details aside
    ("I'm 34 and we live in Canada. How should I prune my roses in late winter?",
     "no sentence of the request is about the passage"),
    # a number of what is asked stays strict
    ("We live in Canada. Should brown lentils simmer for 40 minutes?", "'40 minutes'"),
    # what is asked holds no content word: the details are the need, and stay strict
    ("I run a bakery in Paris and my ovens keep failing. What should I do?", "'Paris'"),
    # a detail the passage measures alike is a parameter of the question, not a detail
    ("I'm cooking 3 lentils portions for my 4 kids. Are red lentils done in 12 minutes?",
     "'12 minutes'"),
])
def test_what_is_asked_stays_grounded_in_the_passage(text: str, missing: str) -> None:
    assert missing in grounding(text, LENTILS, query_form="long")


def test_a_name_may_come_from_the_document_and_the_section_path() -> None:
    # 'Linux': another passage of the same document (the Debian guide) names it
    assert grounding("What time does a Linux system clock keep?", TIMEZONE,
                     query_form="question") == ""
    # 'Woody': the passage's section path
    assert grounding("Does Woody keep GMT on the system clock?", TIMEZONE,
                     query_form="question") == ""
    bare = Doc("bare", TIMEZONE.text, TIMEZONE.title)  # no section, no document
    assert "'Woody'" in grounding("Does Woody keep GMT on the system clock?", bare,
                                  query_form="question")
    assert "'Linux'" in grounding("What time does a Linux system clock keep?", bare,
                                  query_form="question")


@pytest.mark.parametrize(("text", "doc", "missing"), [
    # a name of neither the passage nor its document
    ("What time does a Windows system clock keep?", TIMEZONE, "'Windows'"),
    # a name of another document's passage, asked of this one: off-topic
    ("What time does a Linux system clock keep?", ROSES, "'Linux'"),
    # content words of another passage of the same document: that passage's question
    ("How long should dried beans soak before the pressure cooker?", LENTILS, "content words"),
])
def test_the_document_grounds_names_only_and_only_its_own(text: str, doc: Doc,
                                                           missing: str) -> None:
    assert missing in grounding(text, doc, query_form="question")


@pytest.mark.parametrize("text", [
    "Does Debian's clock keep GMT time for Unix?",  # the passage's own name, possessive
    "Does Debian’s clock keep GMT time for Unix?",  # a typographic apostrophe
    "What does a Linux’s system clock keep, GMT or local time?",  # the document's name
])
def test_a_possessive_name_is_the_name(text: str) -> None:
    assert grounding(text, TIMEZONE, query_form="question") == ""


@pytest.mark.parametrize(("text", "missing"), [
    ("Does Windows's clock keep GMT time for Unix?", "Windows's"),  # nowhere
    ("Does Gardener’s clock keep GMT time for Unix?", "Gardener’s"),  # nowhere either
])
def test_a_possessive_of_a_foreign_name_stays_ungrounded(text: str, missing: str) -> None:
    assert missing in grounding(text, TIMEZONE, query_form="question")


def test_a_supported_claims_names_come_from_its_passage_and_the_documents_labels() -> None:
    # 'Woody' (the section path) grounds a claim; 'Linux' (another passage's text) does
    # not: a claim's names are its facts, and 'Linux' is a fact of that passage
    assert grounding("The system clock of Woody keeps GMT time.", TIMEZONE,
                     query_form="claim-supported", stance="supported") == ""
    swapped = "The system clock of Linux keeps GMT time."
    assert "'Linux'" in grounding(swapped, TIMEZONE, query_form="claim-supported",
                                  stance="supported")
    # a question may name it (what the document is about), and a refuted claim may
    # swap it in (its one changed fact)
    assert grounding("Does Linux keep GMT time on the system clock?", TIMEZONE,
                     query_form="question") == ""
    assert grounding(swapped, TIMEZONE, query_form="claim-refuted", stance="refuted") == ""
    # a name of another document stays ungrounded in every form
    for form, stance in (("claim-supported", "supported"), ("question", None)):
        meta = {"stance": stance} if stance else {}
        assert "'Linux'" in grounding("Does Linux prune roses in late winter?", ROSES,
                                      query_form=form, **meta)


@pytest.mark.parametrize("text", [
    "You must be 16 years old to join the club.",  # "18 or over": no unit in the passage
    "Applicants aged 21 years or over can join the club.",
    "Joining the club costs a yearly fee of 35 pounds.",  # the same unit: as before
])
def test_a_refuted_claim_may_change_a_number_whose_counterpart_has_no_unit(text: str) -> None:
    assert grounding(text, CLUB, query_form="claim-refuted", stance="refuted") == ""
    assert grounding(text, CLUB, query_form="claim-supported", stance="supported") != ""


@pytest.mark.parametrize(("text", "doc", "missing"), [
    # two facts changed: the age and the fee
    ("You must be 16 years old and pay 30 pounds to join the club.", CLUB, "changes one fact"),
    # a changed number and a changed name
    ("Applicants must be 16 years old and live in Yorkshire to join.", CLUB,
     "changes one fact"),
    # no counterpart: the passage gives no number at all
    ("Members meet on the village green twice a week at 7 pm.", QUIET, "changes one fact"),
])
def test_a_refuted_claim_that_changes_more_than_one_fact_stays_rejected(
        text: str, doc: Doc, missing: str) -> None:
    assert missing in grounding(text, doc, query_form="claim-refuted", stance="refuted")


def test_an_instructed_row_is_held_to_its_form_on_its_instructed_and_reversed_texts() -> None:
    core = "My budget is $2.50 a day. Which snacks, e.g. fruit or nuts, fit it?"

    def form_findings(**texts: str) -> list[str]:
        query = Query("q", core, {"query_form": "instructed", "core_query": core, **texts})
        return [f.field for f in validate(Case(query, case_fields(query), (CORE,)),
                                          Context(docs=DOCS, language="en"),
                                          only=["form.intent_type"])]

    assert form_findings(instructed=f"{core} I only want guides for students.",
                         reversed=f"{core} I do not want guides for students.") == []
    assert form_findings(instructed=core, reversed="snacks for students on $2.50 a day") == [
        "instructed", "reversed"]


# an instructed query over a refuted-claim core: the changed fact is not in the passage by
# design; the core is grounded by the fact it contradicts, as the claim itself would be
_REFUTED_CORE = "Eggs for a firm yolk boil for three minutes."
_REFUTED_FORM = {"core_form": "claim-refuted", "core_stance": "refuted"}


def _instructed(core: str, doc: Doc, **meta: Any) -> dict[str, str]:
    text = f"{core} I only want guides written for beginners."
    return findings(text, doc, query_form="instructed", core_query=core, **meta)


def test_a_refuted_claim_core_is_grounded_by_the_fact_it_contradicts() -> None:
    assert _instructed(_REFUTED_CORE, EGGS, **_REFUTED_FORM) == {}
    # the same core with no form recorded is grounded strictly, as before: 'three' is missing
    assert "'three minutes'" in _instructed(_REFUTED_CORE, EGGS).get("grounding.query", "")
    # a stance alone (an older intents folder) grounds it as a refuted claim too
    assert _instructed(_REFUTED_CORE, EGGS, core_stance="refuted") == {}


@pytest.mark.parametrize(("core", "doc", "missing"), [
    # the changed fact has nothing it contradicts in the passage (no volume there)
    ("Eggs for a firm yolk need 2 litres of water.", EGGS, "'2 litres'"),
    # two facts changed: no longer one fact of the passage changed
    ("The nitrogen cycle was discovered by Sergei Winogradsky in 1890.", SALT,
     "changes one fact"),
    # a core unrelated to its passage
    ("Goldfish need a heater set to 28 degrees.", SOUP, "'28'"),
    ("Wireless network cards need a driver before Debian can use them.", EGGS,
     "content words"),
])
def test_an_unsupported_or_unrelated_refuted_core_stays_ungrounded(core: str, doc: Doc,
                                                                    missing: str) -> None:
    found = _instructed(core, doc, **_REFUTED_FORM)
    assert missing in found.get("grounding.query", ""), found


def test_a_persona_core_is_grounded_as_a_persona_request() -> None:
    core = ("I'm cooking breakfast for my kids and they hate runny yolks, so I don't want the "
            "eggs too mushy. How long should they boil?")
    assert _instructed(core, EGGS, core_form="long") == {}
    unrelated = ("I'm moving house next month and need to carry my aquarium. How should I "
                 "pack the fish for a long car journey?")
    assert "grounding.query" in _instructed(unrelated, SALT, core_form="long")
