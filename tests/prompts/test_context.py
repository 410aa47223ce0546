"""Every generation prompt that shows a passage shows its document's title and section path
once, through one helper (``prompts/context.py``); a passage without them shows neither
label."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from irforge.core.records import Doc
from irforge.generators.instructions.dimensions import load_dimensions
from irforge.generators.instructions.steps import KeywordItem, keyword_step
from irforge.generators.instructions.steps.rewrite import RewriteItem, rewrite_step
from irforge.generators.instructions.units import SEED, Group, Member
from irforge.generators.intents import build_tasks, load_intents, load_taxonomy
from irforge.generators.intents.plan import PlannedQuery
from irforge.generators.intents.steps import PICK_NEED_TEMPLATE, QueryItem, needs_step, query_step
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.selection import QueryPlan
from irforge.generators.logical.steps import QueryItem as LogicalItem
from irforge.generators.logical.steps import query_step as logical_query_step
from irforge.generators.multicon.domains import get_domain
from irforge.generators.multicon.steps import conditions_step
from irforge.generators.relevance.steps import Pair, base_variables
from irforge.prompts import get_template, list_templates
from irforge.prompts.context import doc_context, passage_context

TEXT = ("Rinse the green lentils under cold water and drain them well. Soften two chopped "
        "onions in olive oil for eight minutes. Add the lentils, 50 g of vermicelli and one "
        "litre of stock, then simmer for twenty minutes. Season with cumin and lemon juice "
        "before serving the soup hot.")
TITLED = Doc("soup.md_1", TEXT, "Lentil soup with vermicelli",
             {"section": "Lentil soup with vermicelli > Method > Cooking"})
BARE = Doc("notes.txt_1", TEXT, "", {})
SHOWN_TITLE, SHOWN_SECTION = "Title: Lentil soup with vermicelli", "Section: Method > Cooking"


def test_the_helper_shows_title_and_section_path_once() -> None:
    assert doc_context(TITLED) == f"{SHOWN_TITLE}\n{SHOWN_SECTION}"
    assert passage_context("Flood plan", "Shelters > Pets") == \
        "Title: Flood plan\nSection: Shelters > Pets"


@pytest.mark.parametrize(("title", "section", "shown"), [
    ("", "", ""), ("  ", None, ""), ("Flood plan", "", "Title: Flood plan"),
    ("", "Shelters", "Section: Shelters"),
    ("Flood plan", "Flood plan", "Title: Flood plan"),  # the section is only the title
])
def test_an_empty_title_or_section_is_left_out(title: str, section: str | None,
                                               shown: str) -> None:
    assert passage_context(title, section) == shown


def test_a_section_that_is_not_a_string_is_left_out() -> None:
    assert doc_context(Doc("d", "text", "", {"section": ["a", "b"]})) == ""


# -- each method's prompts -----------------------------------------------------------------

Prompt = Callable[[Doc], list[tuple[str, Mapping[str, Any]]]]


def _intents(doc: Doc) -> list[tuple[str, Mapping[str, Any]]]:
    taxonomy = load_taxonomy()
    out = []
    builtin = list(load_intents().values())
    own = builtin[0].model_copy(update={"name": "Own", "needs_template": "intents.generic_needs",
                                        "query_template": "intents.generic_query"})
    for intent in [*builtin, own]:  # and an intent of a user's file (the generic templates)
        task = build_tasks([intent], taxonomy)[0]
        planned = PlannedQuery("q1", task, doc, {"query_length": "5 to 20 words",
                                                 "clarity": "clear",
                                                 "passage_length": "at most 50 words",
                                                 "difficulty": "high school"}, "s")
        for step in (needs_step(intent.needs_template, 3), needs_step(PICK_NEED_TEMPLATE, 1)):
            out.append((step.template, step.variables(planned)))
        step = query_step(intent.query_template)
        out.append((step.template, step.variables(QueryItem(planned, "how long to simmer"))))
    return out


def _logical(doc: Doc) -> list[tuple[str, Mapping[str, Any]]]:
    plan = QueryPlan("lq-1p-0001", "1p", "g", (doc.doc_id,))
    step = logical_query_step()
    return [(step.template, step.variables(LogicalItem(plan, (doc,), DEMONSTRATIONS["1p"])))]


def _multicon(doc: Doc) -> list[tuple[str, Mapping[str, Any]]]:
    step = conditions_step(get_domain("books"), 2)
    return [(step.template, step.variables(doc))]


def _instructions(doc: Doc) -> list[tuple[str, Mapping[str, Any]]]:
    member = Member(doc, "expert")
    group = Group("q1", "how to cook lentil soup", "audience", (member,))
    out: list[tuple[str, Mapping[str, Any]]] = []
    step = keyword_step()
    out.append((step.template, step.variables(KeywordItem(group, member))))
    for name, spec in load_dimensions().items():
        if spec.rewrite is None:
            continue
        source = Member(doc, spec.rewrite.source or SEED)  # a rule without `from`: a seed
        item = RewriteItem(Group("q1", "how to cook lentil soup", name, (source,)), spec,
                           source, spec.rewrite.targets[0], ("ana_b", "cole_d"))
        step = rewrite_step(spec.rewrite.template)
        out.append((step.template, step.variables(item)))
    return out


def _relevance(doc: Doc) -> list[tuple[str, Mapping[str, Any]]]:
    intent = load_intents()["QA"]
    pair = Pair("q1", doc.doc_id, "how long do lentils simmer", doc.text, intent,
                doc_context(doc))
    return [(template.name, {**template.example, **base_variables(pair)})
            for template in list_templates() if template.name.startswith("relevance.")]


METHODS: dict[str, Prompt] = {"intents": _intents, "logical": _logical,
                              "multicon": _multicon, "instructions": _instructions,
                              "relevance": _relevance}


def _rendered(doc: Doc, method: str) -> dict[str, str]:
    return {name: "\n".join(m["content"] for m in get_template(name).render(**variables))
            for name, variables in METHODS[method](doc)}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_a_titled_passage_shows_its_title_and_section_once(method: str) -> None:
    prompts = _rendered(TITLED, method)
    assert prompts
    for name, text in prompts.items():
        assert text.count(SHOWN_TITLE) == 1, (name, text)
        assert text.count(SHOWN_SECTION) == 1, (name, text)
        assert f"{SHOWN_SECTION}\n" in text, name  # its own line, the passage after it


@pytest.mark.parametrize("method", sorted(METHODS))
def test_a_passage_without_them_shows_neither_label(method: str) -> None:
    titled = _rendered(TITLED, method)
    for name, text in _rendered(BARE, method).items():
        assert "Title:" not in text and "Section:" not in text, (name, text)
        # the same prompt as the titled one without its two lines: no blank line left behind
        assert titled[name].replace(f"{SHOWN_TITLE}\n{SHOWN_SECTION}\n", "") == text, name


def test_every_template_with_a_context_variable_is_covered() -> None:
    covered = {name for method in METHODS for name in _rendered(TITLED, method)}
    declared = {t.name for t in list_templates() if "context" in t.variables}
    assert declared - covered == set()


def test_context_is_optional_for_callers_and_for_overrides(tmp_path) -> None:
    """A caller may leave the document context out (no lines shown), and a user's override
    that does not declare it still renders when a method passes it."""
    from irforge.prompts import get_template
    from irforge.prompts.registry import load_template_file

    judge = get_template("relevance.zero_shot")
    values = {"query": "q?", "passage": "p.", "query_name": "query",
              "passage_name": "passage", "goal": "g", "scale": ["a", "b"]}
    assert judge.render(**values) == judge.render(**values, context="")
    override = tmp_path / "zero_shot.yaml"
    override.write_text("paper: mine\ndescription: a user's judge\nvariables: [query, passage]\n"
                        "user: |\n  {{ query }} / {{ passage }}\n", encoding="utf-8")
    mine = load_template_file(override, "relevance.zero_shot")
    assert mine.render(query="q?", passage="p.", context="Title: T")[-1]["content"].strip() \
        == "q? / p."
