"""Every MultiConIR template renders for every built-in domain and style, and says what it must."""

from __future__ import annotations

import pytest

from irforge.generators.multicon.domains import BUILTIN_DOMAINS
from irforge.generators.multicon.phrases import PHRASE_WORDS
from irforge.generators.multicon.steps import HARD_NEGATIVE_TEMPLATES, candidate_sentences
from irforge.prompts import get_template, list_templates
from irforge.steps.choices import numbered
from tests.generators.multicon.docs import NOVEL, NOVEL_CONDITIONS

TEMPLATES = ["multicon.conditions", "multicon.condition_phrase", "multicon.condition_terms",
             "multicon.descriptive_query",
             "multicon.hard_negative_modify", "multicon.hard_negative_keyword",
             "decomposition.adaptive"]


def _text(messages):
    return "\n".join(m["content"] for m in messages)


def test_templates_are_registered_and_cite_the_paper():
    names = {t.name for t in list_templates()}
    assert set(TEMPLATES) <= names
    for name in TEMPLATES:
        template = get_template(name)
        assert "section" in template.paper
        assert template.path.read_text(encoding="utf-8").startswith("#")
        assert _text(template.render_example())


def test_picked_condition_prompt_lists_the_sentences_key_terms():
    from irforge.generators.multicon.steps import key_terms

    sentence = NOVEL_CONDITIONS[0]
    text = _text(get_template("multicon.condition_terms").render(
        entity="book", sentence=sentence, terms=list(key_terms(sentence))))
    assert sentence in text and ", ".join(key_terms(sentence)) in text


@pytest.mark.parametrize("domain", sorted(BUILTIN_DOMAINS))
def test_condition_prompt_for_each_domain(domain):
    spec = BUILTIN_DOMAINS[domain]
    lines = numbered([s.text for s in candidate_sentences(NOVEL)])
    text = _text(get_template("multicon.conditions").render(
        domain=spec.name, entity=spec.entity, features=list(spec.features), n=7,
        sentences=lines, context="Title: The Salt Orchard"))
    assert "exactly 7 different sentences" in text
    assert "Title: The Salt Orchard\n[1] The Salt Orchard" in text
    assert all(line in text for line in lines) and lines[0].startswith("[1] The Salt Orchard")
    assert all(feature in text for feature in spec.features)
    assert '"ids"' in text


@pytest.mark.parametrize("domain", sorted(BUILTIN_DOMAINS))
@pytest.mark.parametrize("style", ["instruction", "descriptive"])
def test_query_prompt_for_each_domain_and_style(domain, style):
    spec = BUILTIN_DOMAINS[domain]
    examples = list(getattr(spec, f"{style}_examples"))
    assert examples, f"{domain} ships no {style} example"
    if style == "instruction":  # one condition phrase at a time; q_k lists k of them
        text = _text(get_template("multicon.condition_phrase").render(
            entity=spec.entity, sentence=NOVEL_CONDITIONS[1], examples=examples,
            **PHRASE_WORDS))
        assert f"a {spec.entity}" in text and f"Sentence: {NOVEL_CONDITIONS[1]}" in text
        assert NOVEL_CONDITIONS[0] not in text and '"phrase"' in text
        assert examples[0] in text
        return
    text = _text(get_template("multicon.descriptive_query").render(
        entity=spec.entity, k=2, sentences=NOVEL_CONDITIONS[:2], examples=examples))
    assert f"a {spec.entity}" in text and "2 sentences" in text
    assert f"1. {NOVEL_CONDITIONS[0]}" in text and f"2. {NOVEL_CONDITIONS[1]}" in text
    assert NOVEL_CONDITIONS[2] not in text
    assert examples[0] in text
    assert "not bullets or a numbered list" in text and '"query"' in text


def test_query_prompt_without_examples_has_no_example_heading():
    text = _text(get_template("multicon.descriptive_query").render(
        entity="book", k=1, sentences=NOVEL_CONDITIONS[:1], examples=[]))
    assert "Examples" not in text


@pytest.mark.parametrize("domain", sorted(BUILTIN_DOMAINS))
@pytest.mark.parametrize("strategy", sorted(HARD_NEGATIVE_TEMPLATES))
def test_hard_negative_prompt_for_each_domain_and_strategy(domain, strategy):
    spec = BUILTIN_DOMAINS[domain]
    examples = [e.model_dump() for e in spec.hard_negative_examples]
    template, _ = HARD_NEGATIVE_TEMPLATES[strategy]
    text = _text(get_template(template).render(
        query="A 1987 novel by Varga", sentence=NOVEL_CONDITIONS[0], examples=examples))
    assert NOVEL_CONDITIONS[0] in text and "A 1987 novel by Varga" in text
    assert examples[0]["modified"] in text
    if strategy == "keyword":
        assert "key terms" in text and '"key_terms"' in text
    else:
        assert "Change the key information" in text


def test_adaptive_prompt_numbers_the_conditions():
    text = _text(get_template("decomposition.adaptive").render(
        query="Find a book: 1. a. 2. b.", conditions=["a 1987 novel", "about bees"]))
    assert "2 numbered conditions" in text and "2. about bees" in text


def test_the_phrase_prompt_asks_for_the_words_its_check_accepts():
    from irforge.generators.multicon.phrases import (
        MAX_PHRASE_WORDS,
        MIN_PHRASE_WORDS,
        validate_phrase,
    )
    from irforge.generators.multicon.steps import condition_phrase_step
    from irforge.methods.prompt_lint import json_objects

    step = condition_phrase_step(BUILTIN_DOMAINS["books"])
    item = type("Item", (), {"sentence": NOVEL_CONDITIONS[2], "key": "k", "source": "s",
                             "index": 1})()
    text = _text(get_template(step.template).render(**step.variables(item)))
    assert f"{MIN_PHRASE_WORDS} to {MAX_PHRASE_WORDS} words" in text
    [(_, example)] = json_objects(text)
    assert validate_phrase(example["phrase"]) == example["phrase"]  # the example obeys it


def test_step_one_shows_a_sentence_that_points_back_with_its_referent():
    doc = ("The Ashby lathe turns bowls up to 300 mm across. It runs on a 750 W motor. "
           "The workshop keeps a set of six gouges beside it.")
    lines = numbered([s.text for s in candidate_sentences(doc)])
    assert lines[0] == ("[1] The Ashby lathe turns bowls up to 300 mm across. It runs on a "
                        "750 W motor.")
    assert lines[1].startswith("[2] The workshop keeps")
