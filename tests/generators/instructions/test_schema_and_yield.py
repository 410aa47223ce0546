"""Choices and shapes by construction in the per-item schemas, known-bad outputs that stay
rejected, the yield table with exit 3 of an empty build, and re-runs that keep the rest."""

from __future__ import annotations

import json
import re

import pytest

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.core.records import Doc
from irforge.generators.instructions import BuildSettings, build_instructions, load_dimensions
from irforge.generators.instructions.pairs import Pair
from irforge.generators.instructions.steps import (
    check_hard_negative,
    check_instruction,
    check_keyword,
    check_reversal,
    check_rewrite,
    keyword_choices,
    keyword_model,
    request_pattern,
)
from irforge.steps.runner import BuildRunner
from tests.generators.instructions.test_build import EXPERT, KW_DOCS, ScriptedEngine, _answers


def test_keyword_choices_are_terms_of_the_document_that_pass_the_check():
    query, doc, others = "What stops flood damage?", KW_DOCS["k1"], [KW_DOCS["k2"]]
    choices = keyword_choices(query, doc, others)
    assert "Sandbags" in choices and "shallow floodwater" in choices
    assert all(check_keyword(term, query, doc, others) == [] for term in choices)
    assert "sandbags" not in {c.lower() for c in keyword_choices(query, doc, [KW_DOCS["k3"]])}
    schema = keyword_model(choices).model_json_schema()
    assert schema["properties"]["keyword"]["enum"] == list(choices)
    # validation is unchanged: an answer outside the choices is parsed, then the check rejects
    assert keyword_model(choices)(keyword="and").keyword == "and"


def test_request_patterns_admit_a_good_request_and_refuse_the_known_bad_shapes():
    terms = ("layman", "plain language")
    instructed = request_pattern("How do flood warnings work?", terms)
    reversed_ = request_pattern("How do flood warnings work?", terms, negated=True)
    assert instructed and reversed_
    good = "How do flood warnings work? Please explain it for a layman."
    assert re.match(instructed, good)
    assert not re.match(instructed, "Explain it for a layman.")  # one sentence
    assert not re.match(instructed, "What is rain? Explain it for a layman.")  # query lost
    assert re.match(reversed_, "How do flood warnings work? Please do not write for a layman.")
    assert not re.match(reversed_, good)  # no negation before the condition
    assert request_pattern("How?", terms) is None  # no content word to keep: checks only


CORE = "My budget is $2.50 a day. Which snacks, e.g. fruit or nuts, fit it?"


def test_the_instructed_form_takes_a_core_query_of_several_sentences():
    terms = ("layman", "plain language")
    instructed = request_pattern(CORE, terms)
    reversed_ = request_pattern(CORE, terms, negated=True)
    assert instructed and reversed_
    good = f"{CORE} Please explain it for a layman."
    assert re.match(instructed, good)
    assert re.match(reversed_, f"{CORE} Please do not write for a layman.")
    # still required: the instruction sentence, naming the condition, after a clean stop
    assert not re.match(instructed, CORE)
    assert not re.match(instructed, f"{CORE}? Please explain it for a layman.")  # "it??"
    assert not re.match(instructed, "Which snacks fit? Explain it for a layman, e.g. briefly.")
    assert not re.match(instructed, "What is rain? Explain it for a layman.")  # query lost
    layman = load_dimensions()["audience"].value("layman")
    assert check_instruction(good, CORE, layman) == []
    assert any("1 sentence" in r for r in check_instruction(
        "snacks on $2.50 a day for a layman", CORE, layman))
    padded = f"{CORE} Fruit is cheap. Nuts are not. Crisps are salty. Explain it for a layman."
    assert any("6 sentences" in r for r in check_instruction(padded, CORE, layman))


def test_known_bad_outputs_stay_rejected():
    dims = load_dimensions()
    layman = dims["audience"].value("layman")
    query = "How do flood warnings work?"
    instructed = "How do flood warnings work? Please explain it for a layman."
    assert check_instruction(instructed, query, layman) == []
    assert check_instruction("How do flood warnings work? Do not write for a layman.", query,
                             layman)  # negated condition
    assert check_reversal(instructed, instructed, query, layman)  # identical to the instruction
    assert check_rewrite(EXPERT, EXPERT, layman)  # rewrite equal to its source
    assert check_hard_negative(EXPERT, query, [EXPERT], min_words=5)  # hard negative = positive
    assert check_keyword("monsoon", query, KW_DOCS["k1"])  # keyword not in the document


def _build(root, pairs, answers=None, distractors=()):
    engine = ScriptedEngine(answers or _answers())
    return build_instructions(BuildRunner.open(engine, root, "instructions"), pairs,
                              load_dimensions(), BuildSettings(hard_negatives=1, seed=3),
                              distractors=distractors)


def test_yield_table_goes_to_the_manifest_and_an_empty_build_raises(tmp_path):
    pair = Pair("q1", "How do flood warnings work?", Doc("e1", EXPERT), "audience", None)
    report = _build(tmp_path / "b", [pair])
    rows = {row["step"]: row for row in Benchmark(tmp_path / "b").manifest()["steps"][
        "instructions"]["yield"]}
    # the seed is rewritten for both audiences
    assert rows["instructions.rewrite"] == {"step": "instructions.rewrite", "attempted": 2,
                                            "accepted": 2, "rejected": {}, "samples": 2}
    assert rows["instructions.instruction"]["accepted"] == 1
    assert rows["instructions.instruction"]["rejected"] == {
        "rejected: negates the condition '…'": 1}
    report.require_yield()  # one unit kept: no error

    silent = {**_answers(), "instructions.rewrite_audience": lambda item: None}
    empty = _build(tmp_path / "e", [pair], silent)
    assert empty.counts["units"] == 0
    with pytest.raises(EmptyResultError, match="0 instruction units accepted") as error:
        empty.require_yield()
    # both rewrites of the seed failed
    assert "llm error (x2)" in str(error.value) and error.value.exit_code == 3


def test_rerun_for_another_dimension_keeps_the_units_already_in_the_folder(tmp_path):
    root = tmp_path / "b"
    audience = Pair("q1", "How do flood warnings work?", Doc("e1", EXPERT), "audience", None)
    _build(root, [audience])
    bench = Benchmark(root)
    before = {q.query_id for q in bench.queries()}
    assert before == {"q1-audience-layman"}
    # passages the query is grounded in (the validators reject an ungrounded query)
    k1 = KW_DOCS["k1"] + " Sandbags help stop flood damage."
    k2 = KW_DOCS["k2"] + " An early warning stops flood damage to homes."
    keyword = [Pair("q2", "What stops flood damage?", Doc("k1", k1), "keyword"),
               Pair("q2", "What stops flood damage?", Doc("k2", k2), "keyword")]
    answers = {**_answers(), "instructions.keyword": lambda item: {
        k1: "sandbags", k2: "sirens"}[item["document"]]}
    _build(root, keyword, answers)
    queries = {q.query_id: q for q in bench.queries()}
    assert {"q1-audience-layman", "q2-keyword-sandbags", "q2-keyword-sirens"} <= set(queries)
    assert bench.qrels_dict("changed")["q1-audience-layman"] == {
        "e1--audience-expert": 0, "e1--audience-layman": 1, "q1--hardneg-1": 0}
    assert {"e1--audience-expert", "e1--audience-layman", "k1", "k2"} <= {
        d.doc_id for d in bench.corpus()}
    groups = (root / "instructions" / "groups.jsonl").read_text().splitlines()
    assert len(groups) == 2

    _build(root, [audience])  # the audience pair again: replaced, the keyword units stay
    assert set(queries) == {q.query_id for q in bench.queries()}


def test_rerun_for_another_dimension_keeps_the_first_run_s_seed_out_of_the_corpus(tmp_path):
    """A seed's rewrites stand for it: a later run over the same input corpus (which holds the
    seed as a distractor) must not bring it back beside the kept audience units."""
    root = tmp_path / "b"
    audience = Pair("q1", "How do flood warnings work?", Doc("e1", EXPERT), "audience", None)
    k1 = KW_DOCS["k1"] + " Sandbags help stop flood damage."
    k2 = KW_DOCS["k2"] + " An early warning stops flood damage to homes."
    corpus = [Doc("e1", EXPERT), Doc("k1", k1), Doc("k2", k2),
              Doc("x1", "Tide tables for the harbour.")]
    _build(root, [audience], distractors=corpus)
    bench = Benchmark(root)
    assert "e1" not in {d.doc_id for d in bench.corpus()}
    keyword = [Pair("q2", "What stops flood damage?", Doc("k1", k1), "keyword"),
               Pair("q2", "What stops flood damage?", Doc("k2", k2), "keyword")]
    answers = {**_answers(), "instructions.keyword": lambda item: {
        k1: "sandbags", k2: "sirens"}[item["document"]]}
    _build(root, keyword, answers, distractors=corpus)
    queries = {q.query_id for q in bench.queries()}
    assert {"q1-audience-layman", "q2-keyword-sandbags", "q2-keyword-sirens"} <= queries
    doc_ids = {d.doc_id for d in bench.corpus()}
    assert "e1" not in doc_ids
    assert {"e1--audience-expert", "e1--audience-layman", "k1", "k2", "x1"} <= doc_ids
    groups = {row["dimension"]: row for row in map(json.loads, (
        root / "instructions" / "groups.jsonl").read_text().splitlines())}
    assert groups["audience"]["seed"] == "e1" and "seed" not in groups["keyword"]
    for mode in ("og", "changed", "reversed"):
        assert "e1" not in {doc for row in bench.qrels_dict(mode).values() for doc in row}
    assert check_benchmark(root).ok
