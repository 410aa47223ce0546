"""Choices by construction in the query step's schema, known-bad answers that stay rejected,
the yield table and exit 3 of an empty build, and re-runs that keep the other types."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.beir import write_corpus
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.core.records import Doc
from irforge.generators.logical.build import build_logical
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.labels import labels_path, read_violations
from irforge.generators.logical.method import Config as LogicalConfig
from irforge.generators.logical.query_schema import (
    Evidence,
    answer_choices,
    passage_sentences,
    query_model,
)
from irforge.generators.logical.selection import QueryPlan
from irforge.generators.logical.steps import QueryItem, query_reasons
from irforge.generators.logical.structure import Triple, TripleGroups
from irforge.steps.runner import BuildRunner
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.generators.fake_engine import FakeEngine
from tests.generators.logical.renamed import _renamed, _renamed_answers

FILMS = DEMONSTRATIONS["pin"].passage
BRIDGE = DEMONSTRATIONS["2p"].passage


def _schema(type_name: str, passages: tuple[str, ...]) -> dict:
    return query_model(type_name, passages, ("Films",)).model_json_schema()


def test_schema_enumerates_evidence_sentences_per_passage_and_answer_names():
    passages = (FILMS, BRIDGE)
    schema = _schema("pin", passages)
    evidence = schema["properties"]["evidence"]
    assert evidence["minItems"] == 2
    choices = evidence["items"]["anyOf"]
    assert [c["properties"]["passage"]["const"] for c in choices] == [1, 2]
    assert choices[1]["properties"]["text"]["enum"] == list(passage_sentences(BRIDGE))
    assert "Voss trained at the Hollis Institute of Technology, which is located in the city " \
           "of Dunmore." in choices[1]["properties"]["text"]["enum"]
    answers = schema["properties"]["answer"]["enum"]
    assert {"Ada Kim", "Port Elam", "Lena Ortiz", "Clara Voss", "1902"} <= set(answers)
    assert "The Arden Bridge" not in answers and "Arden Bridge" in answers
    assert set(schema["required"]) == {"query", "answer", "triples", "evidence"}
    union = _schema("2u", passages)
    assert "enum" not in union["properties"]["answer"]  # several entities: left free


def test_schema_sizes_groups_and_keeps_a_variable_in_every_triple():
    defs = _schema("pin", (FILMS,))["$defs"]
    groups = next(v for k, v in defs.items() if k.startswith("TripleGroups_pin"))["properties"]
    assert (groups["negation"]["minItems"], groups["negation"]["maxItems"]) == (1, 1)
    assert groups["union"]["maxItems"] == 0
    assert (groups["projection"]["minItems"], groups["projection"]["maxItems"]) == (0, 2)
    shapes = groups["negation"]["items"]["anyOf"]
    variables = ["?v1", "?t"]
    assert all(variables in (s["properties"]["subject"].get("enum"),
                             s["properties"]["object"].get("enum")) for s in shapes)
    one_hop = next(v for k, v in _schema("1p", (FILMS,))["$defs"].items()
                   if k.startswith("TripleGroups_1p"))["properties"]
    assert (one_hop["projection"]["minItems"], one_hop["projection"]["maxItems"]) == (1, 1)
    assert one_hop["intersection"]["maxItems"] == 0


def test_the_schema_does_not_change_validation():
    """Backends that do not constrain decoding get the post-hoc checks, never a parse error."""
    model = query_model("1p", (FILMS,), ())
    value = model.model_validate_json(json.dumps({
        "query": "q", "answer": "Nobody", "triples": {},
        "evidence": [{"passage": 1, "text": "an invented sentence"}]}))
    assert value.answer == "Nobody" and value.triples.projection == []


def test_answer_choices_are_names_and_numbers_without_leading_function_words():
    assert answer_choices(["The Arden Bridge, opened in 1902, was designed by Clara Voss."]) == (
        "Arden Bridge", "1902", "Clara Voss")


PLAN = QueryPlan("lq-pin-0000", "pin", "Films", ("f1",))
ITEM = QueryItem(PLAN, (Doc("f1", FILMS, "Films"),), DEMONSTRATIONS["pin"])


@pytest.mark.parametrize(("change", "reason"), [
    # a logical query of the wrong shape: the 2in demonstration offered for a pin plan
    (lambda out: DEMONSTRATIONS["2in"].output, "structure: pin needs 2 variable(s)"),
    # non-verbatim evidence
    (lambda out: out.model_copy(update={"evidence": [
        Evidence(passage=1, text="Lena Ortiz won an Oscar in Paris for Iron Meadow")]}),
     "evidence: evidence 'Lena Ortiz won an Oscar"),
    # the answer is not in the passage
    (lambda out: out.model_copy(update={"answer": "Tom Hanks"}),
     "answer: answer 'Tom Hanks' does not appear"),
    # the query gives its answer away
    (lambda out: out.model_copy(update={"query": "Did Ada Kim star in a Lena Ortiz film?"}),
     "answer: the query gives away its answer"),
    # a triple between two constants
    (lambda out: out.model_copy(update={"triples": TripleGroups(projection=[
        Triple(subject="Lena Ortiz", relation="directed", object="Quiet Harbor")])}),
     "links two constants"),
])
def test_known_bad_answers_stay_rejected(change, reason):
    good = DEMONSTRATIONS["pin"].output
    assert query_reasons(ITEM, good) == []
    reasons = query_reasons(ITEM, change(good))
    assert any(r.startswith(reason) or reason in r for r in reasons), reasons


def _answers(pin=None):
    return {"logical.query": lambda item: (pin or DEMONSTRATIONS[item["type_name"]].output
                                           .model_dump()) if item["type_name"] == "pin" else
            DEMONSTRATIONS[item["type_name"]].output.model_dump()}


class Engine(FakeEngine):
    def manifest_entry(self):
        return {"model": self.model, "demo_grade": False}


def test_rerun_for_another_type_keeps_the_queries_already_in_the_folder(tmp_path):
    bench = Benchmark(tmp_path / "bench")
    first = build_logical(BuildRunner.open(Engine(_renamed_answers()), bench.root, "logical"),
                          [Doc("films", _renamed(FILMS), "Films of Nadia Okafor")],
                          LogicalConfig(passage_sentences=0, types=("pin",), per_type=1))
    assert first.accepted == 1
    labels = read_violations(labels_path(bench.root))
    second = build_logical(BuildRunner.open(Engine(_renamed_answers()), bench.root, "logical"),
                           [Doc("bridge", _renamed(BRIDGE), "Keel Bridge")],
                           LogicalConfig(passage_sentences=0, types=("2p",), per_type=1))
    assert second.accepted == 1 and second.kept_from_before == 1
    assert "1 earlier queries kept" in second.line()
    assert {q.query_id for q in bench.queries()} == {"lq-pin-0000", "lq-2p-0000"}
    assert bench.qrels_dict() == {"lq-pin-0000": {"films": 2}, "lq-2p-0000": {"bridge": 2}}
    assert read_violations(labels_path(bench.root)) == labels
    assert {d.doc_id for d in bench.corpus()} == {"films", "bridge"}
    rows = bench.manifest()["steps"]["logical"]["yield"]
    assert rows == [{"step": "logical.query", "attempted": 1, "accepted": 1, "rejected": {},
                     "samples": 1}]


def test_a_build_that_accepts_nothing_raises_with_the_reasons(tmp_path):
    docs = [Doc("films", FILMS, "Lena Ortiz filmography")]
    wrong = DEMONSTRATIONS["2in"].output.model_dump()
    runner = BuildRunner.open(Engine(_answers(pin=wrong)), tmp_path / "b", "logical")
    summary = build_logical(runner, docs,
                            LogicalConfig(passage_sentences=0, types=("pin",), per_type=1))
    assert summary.accepted == 0
    with pytest.raises(EmptyResultError, match=r"0 logical queries accepted") as error:
        summary.require_yield()
    assert "rejected: structure" in str(error.value) and error.value.exit_code == 3


def test_cli_prints_the_yield_table_and_fails_with_exit_3_when_nothing_is_accepted(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(corpus, [Doc("films", FILMS, "Lena Ortiz filmography")])
    script = Script(default=Action.answer({"query": "?"}), rules=(
        Rule("Query type: pin", (Action.answer(DEMONSTRATIONS["2in"].output.model_dump()),)),))
    with ScriptedServer(script) as server:
        result = CliRunner().invoke(build_app(), [
            "build", "logical", str(tmp_path / "bench"), "--corpus", str(corpus),
            "--types", "pin,1p", "--per-type", "1", "--model", "openai/scripted",
            "--api-base", server.url, "--cache", str(tmp_path / "cache.sqlite")])
    assert isinstance(result.exception, EmptyResultError), result.output
    assert result.exception.exit_code == 3  # irforge's main() exits with it
    assert "logical.query          2         0  rejected: structure x1, llm invalid x1" in \
        result.output
    message = str(result.exception)
    assert "0 logical queries accepted" in message and "llm invalid (x1)" in message


def test_values_that_break_the_grammar_stay_out_of_the_enums():
    """A quote inside an enum literal broke llama.cpp's grammar parser (then sampling
    crashed): such sentences are left to the post-hoc checks."""
    passage = ('The 8088 ("eighty-eighty-eight") is a variant of the Intel 8086. '
               'It was introduced on July 1, 1979.')
    schema = query_model("1p", (passage,), ("Intel 8088",)).model_json_schema()
    [choice] = schema["properties"]["evidence"]["items"]["anyOf"]
    assert choice["properties"]["text"]["enum"] == ["It was introduced on July 1, 1979."]
    text = json.dumps(schema)
    enums = [value for values in re.findall(r'"enum": (\[[^\]]*\])', text)
             for value in json.loads(values)]
    assert enums and not [value for value in enums if '"' in value or "\\" in value]


def test_plans_draw_from_the_selector_and_queries_record_their_source(tmp_path):
    """A contents page first in the corpus is never a source; the kept query records its
    passage's selection reason and score, and the manifest the chosen/rejected table."""
    bench = Benchmark(tmp_path / "bench")
    contents = Doc("toc", "Films. Bridges. Index. About this site.", "Contents")
    summary = build_logical(BuildRunner.open(Engine(_renamed_answers()), bench.root, "logical"),
                            [contents, Doc("films", _renamed(FILMS), "Films of Nadia Okafor")],
                            LogicalConfig(passage_sentences=0, types=("pin",), per_type=1))
    assert summary.accepted == 1
    (query,) = bench.queries()
    (source,) = query.metadata["source"]
    assert source["id"] == "films" and source["reason"].startswith("logical score")
    assert source["score"] > 0
    table = bench.manifest()["steps"]["logical"]["details"]["sources"]
    assert table == {"chosen": 1, "rejected": 1, "used": 1,
                     "rejected_by_reason": {"contents_or_licence_page": 1}}
