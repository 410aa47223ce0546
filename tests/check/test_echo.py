"""Every prompt's worked example, fed back as a generated query on an unrelated passage, is
rejected; the harvest covers new templates and user prompt folders without code."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.check.demonstrations import (
    DEMONSTRATION_MODULES,
    PACKAGE,
    harvest,
    module_demonstrations,
    template_demonstrations,
)
from irforge.check.echo import tokens
from irforge.check.suite import Case, Context, case_fields, validate
from irforge.check.text import content_words
from irforge.core.records import Doc, Query
from irforge.prompts.registry import list_templates

UNRELATED = Doc("spokes", "True a wheel by tightening the spoke nipples a quarter turn at a "
                "time, checking the rim against the brake pads after each pass.", "Wheel truing")
OTHER = Doc("saddle", "Set the saddle height so the knee stays slightly bent at the bottom "
            "of the pedal stroke.", "Saddle height")
CONTEXT = Context(docs={d.doc_id: d for d in (UNRELATED, OTHER)}, language="en")


def _rejections(text: str, **meta) -> set[str]:
    query = Query("echo", text, meta)
    return {f.validator for f in validate(Case(query, case_fields(query), (UNRELATED,)),
                                          CONTEXT)}


def _by_template() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {t.name: [] for t in list_templates()}
    for demo in template_demonstrations():
        out[demo.origin.removeprefix("template ")].append(demo.text)
    return out


def _code_demos() -> list[tuple[str, str]]:
    return [(path.relative_to(PACKAGE).as_posix(), demo.text)
            for pattern in DEMONSTRATION_MODULES for path in sorted(PACKAGE.glob(pattern))
            for demo in module_demonstrations(path)]


def test_every_template_shows_examples_that_the_harvest_finds():
    empty = [name for name, texts in _by_template().items() if not texts]
    assert not empty, f"templates without a harvested example: {empty}"
    assert {"generators/logical/demos.py", "generators/multicon/domains.py"} <= {
        origin for origin, _ in _code_demos()}


@pytest.mark.parametrize("name", sorted(_by_template()))
def test_each_worked_example_fed_back_as_a_query_is_rejected(name):
    for text in _by_template()[name]:
        got = _rejections(text)
        assert got, (name, text)
        if len(tokens(text)) >= 3 and content_words(text):  # boilerplate is no echo
            assert "echo" in got, (name, text, got)


def test_code_held_demonstrations_fed_back_are_rejected():
    for origin, text in _code_demos():
        got = _rejections(text)
        assert got, (origin, text)
        if len(tokens(text)) >= 3 and content_words(text):
            assert "echo" in got, (origin, text, got)


def test_an_echoed_need_rejects_an_otherwise_good_query():
    assert _rejections("how to true a wheel with spoke nipples") == set()
    got = _rejections("how to true a wheel with spoke nipples",
                      need="how many times a loan can be renewed")
    assert got == {"echo"}


def test_echo_allows_words_the_passage_itself_holds():
    library = Doc("lib", "The city library lends e-readers for three weeks; a loan can be "
                  "renewed online up to two times.", "Library loans")
    query = Query("q", "How many times can a library loan be renewed?", {})
    context = Context(docs={"lib": library}, language="en")
    found = validate(Case(query, case_fields(query), (library,)), context)
    assert "echo" not in {f.validator for f in found}


def test_a_user_prompt_folder_is_harvested_without_code(tmp_path: Path):
    folder = tmp_path / "prompts" / "mine"
    folder.mkdir(parents=True)
    (folder / "glaze.yaml").write_text(
        'paper: "none"\ndescription: "a user template"\nvariables: [passage]\nuser: |\n'
        '  Passage: {{ passage }}\n'
        '  Answer: {"query": "Which celadon glaze suits porcelain at cone ten?"}\n',
        encoding="utf-8")
    texts = {d.text for d in harvest(tmp_path / "prompts")}
    assert "Which celadon glaze suits porcelain at cone ten?" in texts
    context = Context(docs=CONTEXT.docs, language="en", prompts_dir=tmp_path / "prompts")
    query = Query("q", "Which celadon glaze suits porcelain at cone ten?", {})
    found = validate(Case(query, case_fields(query), (UNRELATED,)), context)
    assert "echo" in {f.validator for f in found}


FILM = Doc("film", "Quiet Fen is a 2001 film directed by Ivo Lenz; Rosa Tamm starred in it.",
           "Quiet Fen")
CAST = Doc("cast", "The actor Otto Crane was born in Bexley and starred in three films.",
           "Otto Crane")
QSL = Doc("qsl", "Operators exchange QSL cards that confirm the date and time of a contact; "
          "paper cards travel through a bureau.", "QSL cards")


def _echoes(text: str, positive: Doc, *others: Doc) -> list[str]:
    query = Query("q", text, {})
    context = Context(docs={d.doc_id: d for d in (positive, *others)}, language="en")
    return [f.detail for f in validate(Case(query, case_fields(query), (positive,)), context,
                                       only=["echo"])]


def test_a_question_frame_alone_is_no_echo_when_the_passage_holds_the_substance():
    # "Which actor starred in" opens logical.hypothetical's example; "actor" is not in the
    # passage but the corpus uses it, and the query's names are the passage's own
    assert _echoes("Which actor starred in Quiet Fen?", FILM, CAST) == []


def test_the_frame_with_the_examples_substance_is_still_an_echo():
    assert _echoes("Which actor starred in a film directed by Lena Ortiz?", FILM, CAST)
    # a frame word the corpus never uses can only come from the prompt
    assert _echoes("Which actor starred in Quiet Fen?", FILM)


def test_a_reworded_example_carrying_its_words_is_an_echo():
    # fc_needs shows "how many times a loan can be renewed"; nothing here renews anything
    found = _echoes("How many times can a QSL card be renewed?", QSL)
    assert found and "renewed" in found[0]
    assert _echoes("How many times can a QSL card be confirmed?", QSL) == []


def test_list_markers_of_a_conditions_query_are_no_numbers_of_an_example():
    text = ("Find a guide that meets these conditions: 1. tighten spoke nipples a quarter "
            "turn. 2. check the rim against the brake pads.")
    assert _echoes(text, UNRELATED) == []
    assert _echoes("Find a book that meets these conditions: 1. A 1987 novel. 2. About a "
                   "beekeeper.", UNRELATED)


def test_a_query_may_name_its_own_inputs_the_method_gave_it() -> None:
    """A MultiConIR query names its domain and an instructed query repeats its core query:
    the method's own inputs, not the prompt's, even where a demonstration has the same words
    (the demo kept such queries, and `check` must agree with the build)."""
    case_text = Doc("case", "An older woman grew confused over two days; she lived alone and "
                    "took her tablets irregularly.", "A case of confusion")
    context = Context(docs={"case": case_text}, language="en")
    text = ("Find a medical case that meets these conditions: 1. woman grew confused. "
            "2. took her tablets irregularly.")

    def echoes(**meta) -> bool:
        query = Query("q", text, meta)
        found = validate(Case(query, case_fields(query), (case_text,)), context, only=["echo"])
        return bool(found)

    assert echoes()  # 'medical' comes from the domain's demonstration, not the passage
    assert not echoes(domain="medical")
