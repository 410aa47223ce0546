"""Intent/taxonomy config, task balance and seeded attribute sampling: plain code, no LLM."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from irforge.core.errors import FormatError, IrforgeError
from irforge.core.records import Doc
from irforge.generators.intents import (
    assign_categories,
    build_tasks,
    load_intents,
    load_taxonomy,
    plan_queries,
    select_intents,
)
from irforge.generators.intents.config import ATTRIBUTE_NAMES
from irforge.generators.intents.plan import pick_need
from irforge.generators.intents.steps import check_example


def _taxonomy(tmp_path: Path) -> Path:
    path = tmp_path / "tax.yaml"
    path.write_text(
        "name: weather\ncategories:\n"
        "  - {name: Flood, keywords: [flood]}\n"
        "  - {name: Fire, short: F, keywords: [wildfire]}\n"
        "  - {name: Quake, keywords: [earthquake]}\n"
        "  - {name: Space, keywords: [meteor]}\n", encoding="utf-8")
    return path


def _docs() -> list[Doc]:
    docs = [Doc(f"flood{i}", "A flood warning after flood waters rose.") for i in range(5)]
    docs += [Doc(f"fire{i}", "The wildfire spread; wildfire crews came.") for i in range(3)]
    docs += [Doc("quake0", "Nothing about shaking here.", metadata={"category": "quake"})]
    docs += [Doc("novel", "A story with one flood.")]
    return docs


def test_builtin_intents_cover_disastir_with_sts_zero_shot_only_on_0_to_5() -> None:
    intents = load_intents()
    assert list(intents) == ["QA", "QAdoc", "Twitter", "FC", "NLI", "STS"]
    assert intents["STS"].relevance.strategies == ["zero_shot"]
    assert intents["STS"].relevance.top_label == 5
    assert all(intents[name].relevance.top_label == 3 for name in list(intents)[:5])
    assert intents["QAdoc"].generates_passage is False
    assert len({intent.task_prefix for intent in intents.values()}) == 6


def test_disastir_taxonomy_gives_48_tasks() -> None:
    taxonomy = load_taxonomy()
    assert len(taxonomy.categories) == 8
    tasks = build_tasks(list(load_intents().values()), taxonomy)
    assert len(tasks) == 48 and len({task.name for task in tasks}) == 48


def test_categories_from_metadata_then_keywords_with_a_minimum(tmp_path: Path) -> None:
    pools = assign_categories(_docs(), load_taxonomy(_taxonomy(tmp_path)))
    assert [doc.doc_id for doc in pools["Flood"]] == [f"flood{i}" for i in range(5)]
    assert len(pools["F"]) == 3
    assert [doc.doc_id for doc in pools["Quake"]] == ["quake0"]  # metadata wins over keywords
    assert pools["Space"] == []  # "novel" has one flood hit, below the default minimum of 2


def test_every_task_gets_the_same_count_and_seeds_spread(tmp_path: Path) -> None:
    intents = select_intents(load_intents(), ["QA", "FC"])
    taxonomy = load_taxonomy(_taxonomy(tmp_path))
    pools = assign_categories(_docs(), taxonomy)
    planned, empty = plan_queries(build_tasks(intents, taxonomy), pools, per_task=4, seed=7)
    counts = Counter(item.task.name for item in planned)
    assert counts == {name: 4 for name in ("QA_Flood", "QA_F", "QA_Quake",
                                          "FC_Flood", "FC_F", "FC_Quake")}
    assert [task.name for task in empty] == ["QA_Space", "FC_Space"]
    flood_seeds = [item.seed_doc.doc_id for item in planned if item.task.name == "QA_Flood"]
    assert len(set(flood_seeds)) == 4  # drawn without replacement while the pool lasts
    fire_seeds = Counter(item.seed_doc.doc_id for item in planned if item.task.name == "QA_F")
    assert set(fire_seeds) == {"fire0", "fire1", "fire2"}  # a pool of 3 used fully before reuse
    assert len({item.query_id for item in planned}) == len(planned)


def test_attributes_are_reproducible_by_seed_and_drawn_from_the_pools(tmp_path: Path) -> None:
    intents = select_intents(load_intents(), ["QA", "NLI"])
    taxonomy = load_taxonomy(_taxonomy(tmp_path))
    pools = assign_categories(_docs(), taxonomy)
    tasks = build_tasks(intents, taxonomy)
    first, _ = plan_queries(tasks, pools, per_task=6, seed=1)
    again, _ = plan_queries(tasks, pools, per_task=6, seed=1)
    other, _ = plan_queries(tasks, pools, per_task=6, seed=2)
    assert [(p.query_id, p.seed_doc.doc_id, dict(p.attributes)) for p in first] == \
        [(p.query_id, p.seed_doc.doc_id, dict(p.attributes)) for p in again]
    assert [dict(p.attributes) for p in first] != [dict(p.attributes) for p in other]
    for item in first:
        assert set(item.attributes) == set(ATTRIBUTE_NAMES)
        for name, value in item.attributes.items():
            assert value in item.task.intent.attributes[name]
    # an item's attributes do not depend on how many items are planned around it
    fewer, _ = plan_queries(tasks, pools, per_task=2, seed=1)
    by_id = {p.query_id: dict(p.attributes) for p in first}
    assert all(by_id[p.query_id] == dict(p.attributes) for p in fewer)


def test_need_choice_is_seeded_and_skips_blank_needs() -> None:
    needs = ["  ", "need a", "need b", "need c"]
    assert pick_need(needs, "0|q1") == pick_need(list(needs), "0|q1")
    assert {pick_need(needs, f"0|q{i}") for i in range(30)} == {"need a", "need b", "need c"}
    with pytest.raises(ValueError, match="no non-empty"):
        pick_need(["", " "], "0|q1")


def test_user_intents_file_adds_an_intent_and_errors_name_file_and_field(tmp_path: Path) -> None:
    good = tmp_path / "intents.yaml"
    good.write_text(
        "Howto:\n  description: a user wants step-by-step instructions\n"
        "  task_prefix: 'Given a task, retrieve instructions'\n"
        "  attributes: {query_length: [short], clarity: [clear], passage_length: [short],"
        " difficulty: [college]}\n"
        "  relevance: {query_name: task, passage_name: guide, goal: the guide explains it,\n"
        "    presence_question: 'Does the guide explain the task?',\n"
        "    scale: [none, somewhat, mostly, fully], criteria: {Exactness: precise},\n"
        "    cot_criteria: [Exactness]}\n", encoding="utf-8")
    intents = load_intents(good)
    assert intents["Howto"].needs_template == "intents.generic_needs"
    assert "QA" in intents
    bad = tmp_path / "bad.yaml"
    bad.write_text(good.read_text().replace("clarity: [clear], ", ""), encoding="utf-8")
    with pytest.raises(FormatError) as info:
        load_intents(bad)
    assert info.value.problem.path == bad and info.value.problem.field == "Howto.attributes"
    with pytest.raises(IrforgeError, match="unknown intent"):
        select_intents(intents, ["QA", "Nope"])


def test_cot_on_a_non_0_to_3_scale_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "intents.yaml"
    path.write_text(
        "Odd:\n  description: d\n  task_prefix: p\n"
        "  attributes: {query_length: [a], clarity: [b], passage_length: [c], difficulty: [d]}\n"
        "  relevance: {query_name: q, passage_name: p, goal: g, presence_question: '?',\n"
        "    scale: [a, b, c], criteria: {Exactness: e, Coverage: c}}\n", encoding="utf-8")
    with pytest.raises(FormatError, match="cot strategy needs a 0-3 scale"):
        load_intents(path)


def test_generated_examples_are_checked_in_plain_code() -> None:
    seed = "The gauge at Marrowbridge triggers warnings at 3.2 metres."
    assert check_example("When is a warning issued?", "At 3.2 m on the gauge.", seed) is None
    assert check_example("   ", "x", seed) == "the query is blank"
    assert "repeats the query" in check_example("Same text", "same  TEXT", seed)
    assert "copies the seed" in check_example("q?", seed, seed)
    assert check_example("q?", None, seed) is None  # QAdoc: no generated passage


def test_each_planned_query_is_asked_for_a_declared_form_that_fits_its_length() -> None:
    """The form comes from the intent's declared forms, among those whose word bounds meet
    the sampled query length: a 150-word request is a long one, a claim is a claim."""
    import random

    from irforge.generators.intents.plan import choose_form, word_range

    assert word_range("at least 150 words") == (150, 10**6)
    assert word_range("fewer than 10 words") == (1, 9)
    assert word_range("5 to 20 words") == (5, 20)
    qa, fc = (load_intents()[name] for name in ("QA", "FC"))
    rng = random.Random(0)
    assert {choose_form(qa, {"query_length": "at least 150 words"}, rng)
            for _ in range(20)} == {"long"}
    assert {choose_form(fc, {"query_length": "5 to 20 words"}, rng)
            for _ in range(40)} == {"claim-supported", "claim-refuted"}
    assert choose_form(load_intents()["NLI"], {"query_length": "5 to 20 words"}, rng) == ""
