"""Declared query forms: each form's worked example is a query of that form, and each shape
test accepts the real language a prompt asks for while its near misses stay rejected."""

from __future__ import annotations

import pytest

from irforge.prompts.forms import (
    form_metadata,
    instructed_parts,
    permits_only,
    query_form,
    query_forms,
)


def test_every_declared_form_accepts_its_own_worked_example() -> None:
    forms = query_forms()
    assert {"keyword", "question", "long", "claim-supported", "claim-refuted", "instructed",
            "reversed", "logical"} <= set(forms)
    for form in forms.values():
        assert form.instruction and form.example, form.name
        assert form.problem(form.example) is None, (form.name, form.problem(form.example))


@pytest.mark.parametrize(("form", "text"), [
    ("keyword", "em vs en dash when use"),
    ("keyword", "neutral titles in writing"),
    ("question", "How long should the eggs boil?"),
    ("long", "I'm cooking for my kids and I don't want the eggs too hard or too mushy. "
             "I'd like to know how long to boil them."),
    ("long", "My grandmother's recipe never says, so how long do the eggs boil?"),
    ("claim-supported", "When the water boils, the eggs go in for ten minutes."),
    ("claim-refuted", "Aljotta is a traditional Greek fish soup."),
    # a core query of several sentences with ordinary punctuation, then the instruction
    ("instructed", "My budget is $2.50 a day. Which snacks, e.g. fruit or nuts, fit it? "
                   "I only want documents written for students."),
    ("instructed", "Why do users leave a slow website? I only want documents that are expert."),
    ("reversed", "Our site takes 4.5 s to load. Do visitors leave? I do not want forum posts."),
])
def test_the_language_each_form_asks_for_is_accepted(form: str, text: str) -> None:
    assert query_form(form).problem(text) is None


@pytest.mark.parametrize(("form", "text"), [
    ("keyword", "The shell looks for commands in the directories of PATH."),
    ("keyword", "dash"),
    ("question", "Repeaters on the 2 metre band use a 600 kHz offset."),
    ("long", "Eggs boil for ten minutes."),
    ("claim-supported", "Does FT8 decode signals below the noise?"),
    ("claim-refuted", "How many times a loan can be renewed."),
    ("claim-supported", "When does the pool open."),
    # the instruction sentence is required: a core query alone, or no second sentence
    ("instructed", "My budget is $2.50 a day, e.g. for snacks."),
    ("instructed", "Why do users leave a slow website? experts."),
    ("reversed", "why do users leave a slow website? not forum posts."),
])
def test_a_query_of_another_form_is_rejected(form: str, text: str) -> None:
    assert query_form(form).problem(text)


def test_a_claim_records_its_stance_and_an_unknown_form_names_the_declared_ones() -> None:
    assert form_metadata(query_form("claim-refuted")) == {"query_form": "claim-refuted",
                                                          "stance": "refuted"}
    assert form_metadata(query_form("keyword")) == {"query_form": "keyword"}
    with pytest.raises(KeyError, match="declared forms: keyword"):
        query_form("haiku")


def test_an_instructed_query_splits_into_its_core_and_its_last_sentence() -> None:
    text = "My budget is $2.50 a day. Which snacks, e.g. fruit, fit it? I only want expert ones."
    assert instructed_parts(text) == ("My budget is $2.50 a day. Which snacks, e.g. fruit, fit "
                                      "it?", "I only want expert ones.")
    assert instructed_parts("snacks on $2.50 a day") == ("snacks on $2.50 a day", "")


def test_an_instructed_query_records_its_core_query_s_own_form() -> None:
    from irforge.prompts.forms import core_form, core_form_metadata

    refuted = form_metadata(query_form("claim-refuted"))
    recorded = core_form_metadata({**refuted, "intent": "FC"})
    assert recorded == {"core_form": "claim-refuted", "core_stance": "refuted"}
    assert core_form(recorded) == refuted
    assert core_form_metadata({"intent": "QA"}) == {}


def test_an_instructed_form_s_most_words_are_its_core_s_plus_the_instruction_budget() -> None:
    form = query_form("instructed")
    assert form.instruction_words and query_form("reversed").instruction_words == \
        form.instruction_words  # declared once (a YAML anchor), read by both forms
    core = " ".join(["word"] * 190)
    assert form.word_bounds(core=core) == (form.min_words, 190 + form.instruction_words)
    assert form.word_bounds() == (form.min_words, form.max_words)  # no core: the form's own
    assert query_form("keyword").word_bounds(core=core) == (2, 12)


PERMISSIONS = ["Stuff written for experts is fine by me.",
               "Anything that is not written in plain language would be okay.",
               "I don't mind pages written for beginners.",
               "Forum threads work for me",
               # a preference does not require either
               "Documents written for experts would be ideal", "Plain pages suit me best",
               "I'd prefer documents written for experts", "Ideally, forum threads"]
REQUIREMENTS = ["I only want documents written for experts.",
                "Only stuff written for experts is fine.",
                "Please give me pages written in plain language.",
                "Nothing but forum threads, thanks.",
                "I need documents written for specialists.",
                "The perfect answer is written for specialists only."]


def test_an_instruction_that_only_permits_is_not_an_instructed_query() -> None:
    form = query_form("instructed")
    for instruction in PERMISSIONS:
        assert permits_only(instruction), instruction
        problem = form.problem(f"tester training requirements. {instruction}",
                               core="tester training requirements")
        assert problem is not None and "only permits or prefers" in problem, instruction
    for instruction in REQUIREMENTS:
        assert not permits_only(instruction), instruction
        assert form.problem(f"tester training requirements. {instruction}",
                            core="tester training requirements") is None, instruction
