"""The validator registry on single queries: each rule rejects what it names, and only that."""

from __future__ import annotations

import pytest

from irforge.check.aliases import corpus_aliases, definitions
from irforge.check.suite import Case, Context, case_fields, validate, validator_names
from irforge.check.text import quantities, same_quantity
from irforge.core.records import Doc, Query

DOCS = {
    "solar": Doc("solar", "Size the battery bank for three days of autonomy. A 200 W panel "
                 "yields about 800 Wh on a sunny day.", "Solar load sizing"),
    "tank": Doc("tank", "Keep dissolved CO2 between 25 to 30 mg/L in planted tanks. Feed the "
                "fish twice a day.", "Planted aquarium care"),
    "tyre": Doc("tyre", "Ultraviolet (UV) light slowly hardens the rubber of tyres. Tyre "
                "levers from the Park Tool Company are made of nylon.", "Tyre ageing"),
    "chain": Doc("chain", "Lubricate the chain every 300 km, or after riding in rain. Wipe off "
                 "excess oil with a rag.", "Chain care"),
}


def findings(text: str, positive: str, **meta):
    query = Query("q1", text, meta)
    case = Case(query, case_fields(query), (DOCS[positive],))
    return validate(case, Context(docs=DOCS, language="en"))


def names_of(text: str, positive: str, **meta) -> set[str]:
    return {f.validator for f in findings(text, positive, **meta)}


# known-bad examples of issue 24: each stays rejected, by the validator that names its fault
@pytest.mark.parametrize(("text", "positive", "meta", "validator"), [
    ("How many times a loan can be renewed.", "solar", {"intent": "FC"}, "echo"),
    ("How many times a loan can be renewed.", "solar", {"intent": "FC"}, "form.intent_type"),
    ("Who designed the Arden Bridge?", "solar", {}, "echo"),
    ("Who designed the Arden Bridge, and what is it?", "tank", {"answer": "Epsom"}, "echo"),
    ("How many fish in 25 to 30 grams of the recommended diet?", "tank", {},
     "grounding.query"),
    ("with the 2016 and later models, the voltage is usually around 3.5 V to 4.8 V.", "solar",
     {}, "grounding.query"),
    ("{I only want documents that are not expert, ... {You can reword it to:", "tank", {},
     "form.debris"),
    ('"]["', "tank", {}, "form.debris"),
    ("how often to lubricate a chain after rain", "solar", {}, "grounding.query"),
    ("how often to lubricate a chain after rain", "solar", {}, "target"),
    ("How many times a batch can be renewed?", "solar", {}, "grounding.query"),
    ("Query: how big should a battery bank be", "solar", {}, "form.debris"),
    ("Sure, how big should a battery bank be?", "solar", {}, "form.debris"),
    ("I cannot help with writing a search query about battery banks.", "solar", {},
     "form.debris"),
    ("Here is the rewritten query: how big should a battery bank be", "solar", {},
     "form.debris"),
    ("Is battery bank autonomy three days?", "solar", {"intent": "FC"}, "form.intent_type"),
    ("Battery bank autonomy is three days.", "solar", {"intent": "QA"}, "form.intent_type"),
    ("battery battery battery battery", "solar", {}, "form.repetition"),
    ("Wie groß sollte die Batteriebank für eine Solaranlage sein?", "solar", {},
     "form.language"),
    ("x", "solar", {}, "form.length"),
])
def test_known_bad_queries_are_rejected(text, positive, meta, validator):
    got = names_of(text, positive, **meta)
    assert validator in got, (text, got)


@pytest.mark.parametrize(("text", "positive", "meta"), [
    ("What CO2 level suits planted tanks, 25 to 30 mg/L?", "tank", {}),
    ("does UV light harden tyre rubber", "tyre", {}),
    ("does ultraviolet light harden tyre rubber", "tyre", {}),  # the corpus defines UV
    ("are PTC tyre levers made of nylon", "tyre", {}),  # initials of Park Tool Company
    ("How often should I oil my chain?", "chain", {}),  # paraphrase: oil for lubricate
    ("How much energy does a 200 watt panel give on a sunny day?", "solar", {"intent": "QA"}),
    ("A battery bank should cover three days of autonomy.", "solar", {"intent": "FC"}),
    ("a panel of more than 150 W for a sunny day", "solar", {}),  # a bound the 200 W meets
])
def test_valid_queries_pass(text, positive, meta):
    assert findings(text, positive, **meta) == []


def test_bounds_must_be_met_and_place_adjectives_ground_in_place_names():
    assert "grounding.query" in names_of("a panel of more than 300 W for a sunny day", "solar")
    farm = Doc("f", "An apple farm in rural Herefordshire, England, published in 1987.", "Farm")
    query = Query("q", "an English apple farm saga published between 1980 and 1990", {})
    context = Context(docs={"f": farm}, language="en")
    assert validate(Case(query, case_fields(query), (farm,)), context) == []
    late = Query("q", "an English apple farm saga published between 2000 and 2010", {})
    assert "grounding.query" in {f.validator for f in validate(
        Case(late, case_fields(late), (farm,)), context)}


def test_units_and_number_formats():
    grams, mg_per_l = quantities("25 to 30 grams")[0], quantities("25 to 30 mg/L")[0]
    assert grams.unit == "grams" and mg_per_l.unit == "mg/l"
    assert not same_quantity(grams, mg_per_l)
    assert same_quantity(quantities("2.5 kg")[0], quantities("2,500 g")[0])
    assert same_quantity(quantities("three weeks")[0], quantities("3 weeks")[0])
    assert quantities("28mm tyres")[0].unit == "mm"
    assert quantities("in the 1920s")[0].value == 1920


def test_corpus_aliases_both_directions_and_initials():
    assert definitions("Ultraviolet (UV) light and UV (ultraviolet) rays") == [
        ("UV", "Ultraviolet"), ("UV", "ultraviolet")]
    aliases = corpus_aliases([DOCS["tyre"]])
    assert "ultraviolet" in aliases.of("uv") and "uv" in aliases.of("ultraviolet")
    assert "park tool company" in aliases.of("ptc")


def test_every_finding_names_a_registered_validator_field_and_fix():
    found = findings("Query: {how} many times a loan can be renewed.", "solar", intent="FC")
    registered = set(validator_names())
    assert found and all(f.validator in registered and f.field and f.detail and f.fix
                         for f in found)
    assert all(f.reason.startswith(f"validator {f.validator}: ") for f in found)


def test_logical_answer_and_entities_must_be_in_the_evidence():
    meta = {"answer": "Epsom", "evidence": [{"passage": 1, "doc_id": "tank",
                                             "text": "Feed the fish twice a day."}]}
    found = findings("How often are the fish fed in planted tanks?", "tank", **meta)
    assert any(f.validator == "grounding.answer" and f.field == "answer" for f in found)
    good = {"answer": "twice a day", "evidence": meta["evidence"]}
    assert findings("How often are the fish fed in planted tanks?", "tank", **good) == []


@pytest.mark.parametrize(("text", "rejected"), [
    # 'Park Tool Company' is in the evidence's passage, not its sentence: the passage is the
    # sentence's context, so the entity is grounded (a capable model names it)
    ("What are the Park Tool Company's tyre levers made of?", False),
    # an entity nothing of the query's passages holds stays an ungrounded anchor
    ("What are the Velox Works tyre levers made of?", True),
])
def test_logical_entities_may_come_from_the_evidence_passage(text: str, rejected: bool):
    meta = {"answer": "nylon", "evidence": [{"passage": 1, "doc_id": "tyre",
                                             "text": "made of nylon"}]}
    found = [f for f in findings(text, "tyre", **meta)
             if f.validator == "grounding.answer" and f.field == "text"]
    assert bool(found) is rejected, found


def test_condition_phrases_must_be_in_their_sentences_and_never_name_the_title():
    doc = Doc("d", "The Salt Orchard is a 1987 novel by Ines Varga. It follows a "
              "lighthouse keeper.", "The Salt Orchard")
    query = Query("q", "Find a novel: 1. The Salt Orchard by Ines Varga. 2. a keeper of a "
                  "lighthouse in Norway.", {
                      "source_doc": "d", "k": 2, "n": 2,
                      "conditions": ["The Salt Orchard is a 1987 novel by Ines Varga.",
                                     "It follows a lighthouse keeper."],
                      "condition_phrases": ["The Salt Orchard by Ines Varga",
                                            "a keeper of a lighthouse in Norway"]})
    context = Context(docs={"d": doc}, language="en")
    found = validate(Case(query, case_fields(query), (doc,), doc), context)
    got = {(f.validator, f.field) for f in found}
    assert ("multicon.title", "condition_phrases 1") in got
    assert ("grounding.conditions", "condition_phrases 2") in got  # "Norway" is invented


def test_generated_positive_must_be_grounded_in_its_seed():
    seed = Doc("s", "Lubricate the chain every 300 km.", "Chain care")
    made = Doc("gen_q", "Oil the chain every 500 km with Brand X wax.", "",
               {"generated": True, "seed_doc_id": "s"})
    query = Query("q", "how often to oil the chain", {})
    context = Context(docs={"s": seed, "gen_q": made}, language="en")
    found = validate(Case(query, case_fields(query), (made,)), context)
    assert "generated.positive" in {f.validator for f in found}


def test_instruction_keyword_must_be_in_the_document_it_selects():
    meta = {"dimension": "keyword", "condition": "nylon", "gold_doc_id": "chain"}
    assert "grounding.keyword" in names_of("how to wipe excess chain oil", "chain", **meta)
    meta["condition"] = "rag"
    assert "grounding.keyword" not in names_of("how to wipe excess chain oil", "chain", **meta)


def test_an_inflected_title_in_a_condition_names_the_document():
    doc = Doc("dip", "A half-wave dipole is two equal lengths of wire fed in the centre. Each "
              "leg is about 10 metres long for 40 metres.", "Half-wave dipoles")
    conditions = ["A half-wave dipole is two equal lengths of wire fed in the centre.",
                  "Each leg is about 10 metres long for 40 metres."]

    def title_findings(first: str) -> list:
        meta = {"source_doc": "dip", "conditions": conditions,
                "condition_phrases": [first, "legs about 10 metres long for 40 metres"]}
        query = Query("q", f"Find an antenna that meets these conditions: 1. {first}. 2. legs "
                      "about 10 metres long for 40 metres.", meta)
        return validate(Case(query, case_fields(query), (doc,), doc),
                        Context(docs={"dip": doc}, language="en"), only=["multicon.title"])

    assert title_findings("a half-wave dipole antenna")  # "dipoles" inflected
    assert not title_findings("two equal lengths of wire fed in the centre")
    assert not title_findings("a half-wave wire antenna")  # one title word is no title


@pytest.mark.parametrize(("answer", "rejected"), [
    ("[a-zA-Z]", False),  # a regular expression's character class is content
    ("1, displayed as [1]", False),  # bash's job number
    ("the bracketed character set [characters]", False),
    ('["twice a day", "daily"]', True),  # a JSON list leaked into the field
    ("[twice a day, daily]", True),  # a whole field that is a bracketed list
    ('"]["', True),
])
def test_a_bracket_is_content_and_a_json_list_is_debris(answer: str, rejected: bool):
    query = Query("q", "How often are the fish fed in planted tanks?", {"answer": answer})
    found = validate(Case(query, case_fields(query), (DOCS["tank"],)),
                     Context(docs=DOCS, language="en"), only=["form.debris"])
    assert bool(found) is rejected, found


HAMMER = Doc("drills", "The library has 14 cordless drills from Makita and Bosch. For masonry, "
             "borrow one of the 3 corded SDS hammer drills. They drill holes up to 24 mm in "
             "concrete and come with a depth stop.", "Drills and drivers")


def _referent_findings(conditions: list[str], phrases: list[str]) -> set[tuple[str, str]]:
    meta = {"source_doc": "drills", "k": 2, "n": 2, "conditions": conditions,
            "condition_phrases": phrases}
    query = Query("q", "Find a document that meets these conditions: 1. "
                  f"{phrases[0]}. 2. {phrases[1]}.", meta)
    found = validate(Case(query, case_fields(query), (HAMMER,), HAMMER),
                     Context(docs={"drills": HAMMER}, language="en"),
                     only=["multicon.referent"])
    return {(f.validator, f.field) for f in found}


def test_a_condition_that_lost_its_referent_stays_rejected():
    # run 6's kept but invalid item: the hammer drills' sentence taken without its subject
    lost = _referent_findings(
        ["The library has 14 cordless drills from Makita and Bosch.",
         "They drill holes up to 24 mm in concrete and come with a depth stop."],
        ["14 cordless drills from Makita and Bosch", "They drill 24 mm holes in concrete"])
    assert lost == {("multicon.referent", "conditions 2"),
                    ("multicon.referent", "condition_phrases 2")}
    joined = _referent_findings(
        ["The library has 14 cordless drills from Makita and Bosch.",
         "For masonry, borrow one of the 3 corded SDS hammer drills. They drill holes up to "
         "24 mm in concrete and come with a depth stop."],
        ["14 cordless drills from Makita and Bosch", "SDS hammer drills for 24 mm holes"])
    assert joined == set()


@pytest.mark.parametrize("text", [
    "My panels charge the battery bank by noon, but I cannot tell how big it should be. "
    "How many days of autonomy should it hold?",
    "Here is what happened: the battery bank ran flat after two cloudy days. How big should "
    "it be?",
    "I'm not sure, but should a battery bank hold three days of autonomy?",
])
def test_a_searcher_saying_i_cannot_or_here_is_is_no_model_chatter(text: str):
    """Run 9: a persona question "... I cannot even see these files ..." was rejected as
    model chatter; only refusals and answers presented as such are."""
    assert "form.debris" not in names_of(text, "solar"), text
