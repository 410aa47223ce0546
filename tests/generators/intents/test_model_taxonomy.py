"""``taxonomy: derived`` with a capable model: the model names the categories once over a
sample of documents (through the real CLI and HTTP to the scripted server); an answer naming
a document it was not shown is re-asked, then a clear error; the small model keeps the term
clusters; a re-run asks nothing again; a dry run counts the request and sends nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.records import Doc
from irforge.generators.intents.method import Config, prepare
from irforge.generators.intents.model_taxonomy import (
    MAX_CATEGORIES,
    ProposedTaxonomy,
    answer_model,
    answer_problems,
    proposed_taxonomy,
    request_values,
    taxonomy_sample,
)
from irforge.llm import Engine
from irforge.prompts import get_template
from irforge.steps.method import Inputs
from irforge.steps.runner import BuildRunner
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.generators.intents.test_scenario import BREAD, _script

ASKED = "Sort the collection into"  # the taxonomy prompt (intents.taxonomy)
CATEGORIES = {"categories": [
    {"name": "Dough and fermentation",
     "description": "Feeding a starter, kneading and proofing dough.",
     "keywords": ["starter", "gluten", "proofing", "dough"],
     "documents": ["starter", "kneading", "proofing"]},
    {"name": "Baking the loaf", "description": "Oven heat and steam while a loaf bakes.",
     "keywords": ["oven", "steam", "crust"], "documents": ["oven"]},
    {"name": "Flour and keeping bread",
     "description": "Which flour to buy and how to keep bread fresh.",
     "keywords": ["flour", "stale", "staling"], "documents": ["flour", "storage"]},
]}
UNKNOWN = {"categories": [{**CATEGORIES["categories"][0], "documents": ["starter", "rye"]},
                          *CATEGORIES["categories"][1:]]}


def _server_script(*answers: dict) -> Script:
    """The scenario's needs and queries, and the taxonomy answers in order (the last repeats)."""
    scenario = _script(good=True)
    return Script(default=scenario.default, rules=(
        Rule(ASKED, tuple(Action.answer(answer) for answer in answers)), *scenario.rules))


def _build(tmp_path: Path, url: str, *extra: str):
    corpus = tmp_path / "corpus.jsonl"
    if not corpus.exists():
        beir.write_corpus(corpus, [Doc(key, text, title) for key, title, text, _, _ in BREAD])
    return CliRunner().invoke(build_app(), [
        "build", "intents", str(tmp_path / "bench"), "--corpus", str(corpus), "--intents", "QA",
        "--per-task", "1", "--model", "openai/scripted", "--api-base", url,
        "--cache", str(tmp_path / "cache.sqlite"), *extra])


def _asked(server: ScriptedServer) -> list:
    return [entry for entry in server.log if ASKED in entry.first_user]


def test_a_capable_model_names_the_categories_once_and_a_rerun_asks_nothing(
        tmp_path: Path) -> None:
    with ScriptedServer(_server_script(CATEGORIES)) as server:
        built = _build(tmp_path, server.url)
        assert built.exit_code == 0, built.output
        [request] = _asked(server)
        sent = len(server.log)
        again = _build(tmp_path, server.url)
        assert again.exit_code == 0, again.output
        assert len(server.log) == sent  # the taxonomy (and every step) came from the cache
    prompt = request.first_user
    assert all(f"[{key}] {title}:" in prompt for key, title, *_ in BREAD)
    assert "derived from the corpus by the model" in built.output
    assert "Dough and fermentation" in built.output
    step = Benchmark(tmp_path / "bench").manifest()["steps"]["intents"]
    taxonomy = step["details"]["taxonomy"]
    assert taxonomy["derivation"] == "model" and taxonomy["derived"]
    assert taxonomy["sample"] == sorted(taxonomy["sample"], key=[b[0] for b in BREAD].index)
    assert [(c["name"], c["description"], c["passages"]) for c in taxonomy["categories"]] == [
        ("Dough and fermentation", "Feeding a starter, kneading and proofing dough.", 3),
        ("Baking the loaf", "Oven heat and steam while a loaf bakes.", 1),
        ("Flour and keeping bread", "Which flour to buy and how to keep bread fresh.", 2)]
    assert {row["step"]: row["accepted"] for row in step["yield"]}["intents.taxonomy"] == 1
    queries = Benchmark(tmp_path / "bench").queries()
    named = {q.metadata["category"] for q in queries}
    assert len(named) >= 2 and named <= {c["name"] for c in CATEGORIES["categories"]}
    by_category = {c["name"]: set(c["documents"]) for c in CATEGORIES["categories"]}
    assert all(q.metadata["seed_doc_id"] in by_category[q.metadata["category"]]
               for q in queries)


def test_an_unknown_document_id_is_re_asked_with_the_problem_named(tmp_path: Path) -> None:
    with ScriptedServer(_server_script(UNKNOWN, CATEGORIES)) as server:
        built = _build(tmp_path, server.url)
        assert built.exit_code == 0, built.output
        first, second = _asked(server)
    assert second.messages[:len(first.messages)] == first.messages  # the same conversation
    reask = second.messages[-1]["content"]
    assert "['rye']" in reask and "not in the list" in reask
    taxonomy = Benchmark(tmp_path / "bench").manifest()["steps"]["intents"]["details"][
        "taxonomy"]
    assert [c["name"] for c in taxonomy["categories"]] == [
        c["name"] for c in CATEGORIES["categories"]]


def test_an_answer_still_unusable_after_the_re_asks_is_a_clear_error(tmp_path: Path) -> None:
    with ScriptedServer(_server_script(UNKNOWN)) as server:
        built = _build(tmp_path, server.url)
        assert len(_asked(server)) == 3  # the question and the engine's two re-asks
        assert not [entry for entry in server.log if ASKED not in entry.first_user]
    assert isinstance(built.exception, IrforgeError), built.output
    message = str(built.exception)
    assert "taxonomy could not be used" in message and "['rye']" in message
    assert "taxonomy: lexical" in message  # the fix: a derivation without the model
    [failure] = [f for f in Benchmark(tmp_path / "bench").failures()
                 if f.step == "intents.taxonomy"]
    assert json.loads(failure.raw_output)["categories"][0]["documents"] == ["starter", "rye"]
    assert not Benchmark(tmp_path / "bench").queries_path.exists()


def test_a_taxonomy_request_the_provider_refuses_ends_as_every_failed_call_does(
        tmp_path: Path) -> None:
    with ScriptedServer(Script(default=Action.error(401))) as server:
        built = _build(tmp_path, server.url)
        assert len(server.log) == 1  # the taxonomy request; nothing planned without it
    assert isinstance(built.exception, IrforgeError) and built.exception.exit_code == 5
    assert "every LLM call failed" in str(built.exception)


def test_the_small_model_and_lexical_keep_the_term_clusters(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    beir.write_corpus(corpus, [Doc(key, text, title) for key, title, text, _, _ in BREAD])
    with ScriptedServer(_server_script(CATEGORIES)) as server:
        for profile, taxonomy in (("small", "derived"), ("capable", "lexical")):
            with Engine("openai/scripted", api_base=server.url, progress=False,
                        cache_path=tmp_path / "c.sqlite", profile=profile) as engine:
                runner = BuildRunner.open(engine, tmp_path / profile, "intents")
                chosen = prepare(Config(taxonomy=taxonomy), Inputs(corpus), runner).taxonomy
            assert chosen.derivation == "lexical" and chosen.manifest()["derivation"] == "lexical"
            assert "term clusters" in chosen.describe()
        assert not server.log  # no request for either


def test_a_dry_run_counts_the_request_and_sends_nothing(tmp_path: Path) -> None:
    with ScriptedServer(_server_script(CATEGORIES)) as server:
        dry = _build(tmp_path, server.url, "--dry-run", "--json")
        plain = _build(tmp_path, server.url, "--dry-run")
        lexical = _build(tmp_path, server.url, "--dry-run", "--json", "--taxonomy", "lexical")
        assert not server.log
    assert dry.exit_code == 0 and lexical.exit_code == 0, dry.output + lexical.output
    assert "to be named by the model" in plain.output
    requests = [json.loads(result.output)["estimate"]["requests"] for result in (dry, lexical)]
    assert requests[0] == requests[1] + 1


# -- the answer's checks and the sample ------------------------------------------------------

def _answer(categories: list[dict]) -> ProposedTaxonomy:
    return ProposedTaxonomy.model_validate({"categories": categories})


def test_answer_problems_name_repeated_names_and_unknown_ids() -> None:
    ids = ("a", "b", "c")
    good = _answer([{"name": "Cats", "description": "d", "keywords": [], "documents": ["a"]},
                    {"name": "Dogs", "description": "d", "keywords": [], "documents": ["b"]}])
    assert answer_problems(good, ids) == []
    twice = _answer([{"name": "Cats", "description": "d", "keywords": [], "documents": ["a"]},
                     {"name": " cats ", "description": "d", "keywords": [],
                      "documents": ["b", "zz"]}])
    problems = answer_problems(twice, ids)
    assert any("repeats 'Cats'" in p for p in problems)
    assert any("['zz']" in p for p in problems)


@pytest.mark.parametrize("categories, why", [
    ([{"name": "Cats", "description": "d", "keywords": [], "documents": ["a"]}],
     "at least 2"),
    ([{"name": " ", "description": "d", "keywords": [], "documents": ["a"]},
      {"name": "Dogs", "description": "d", "keywords": [], "documents": ["b"]}],
     "at least 1 character"),
    ([{"name": "Cats", "description": "d", "keywords": [], "documents": []},
      {"name": "Dogs", "description": "d", "keywords": [], "documents": ["b"]}],
     "at least 1 item"),
    ([{"name": f"C{i}", "description": "d", "keywords": [], "documents": ["a"]}
      for i in range(4)], "at most 3"),
])
def test_the_output_model_rejects_what_cannot_be_a_taxonomy(categories: list[dict],
                                                            why: str) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=why):
        answer_model(("a", "b", "c")).model_validate({"categories": categories})


def test_the_sample_is_bounded_and_the_same_for_a_seed() -> None:
    words = " ".join(f"Ferry {i} crosses the wide river at dawn carrying forty cars."
                     for i in range(200))
    docs = [Doc(f"d{n:03d}_0", f"Document {n} says this. {words}", f"Title {n}")
            for n in range(200)]
    request = taxonomy_sample(docs, seed=3)
    assert request == taxonomy_sample(docs, seed=3)
    assert 0 < len(request.documents) <= 16
    assert len({doc.doc_id.split("_")[0] for doc in request.documents}) == len(request.ids)
    template = get_template("intents.taxonomy")
    prompt = "".join(m["content"] for m in template.render(**request_values(request)))
    assert len(prompt.split()) < 2500 and words not in prompt  # openings, not documents
    assert MAX_CATEGORIES == 8


def test_seed_passages_are_the_named_documents_then_keyword_matches() -> None:
    docs = [Doc(key, text, title) for key, title, text, _, _ in BREAD]
    docs.append(Doc("rye", "Rye flour makes dense bread; rye flour holds water.", "Rye"))
    answer = answer_model(tuple(doc.doc_id for doc in docs[:6])).model_validate(CATEGORIES)
    taxonomy, pools = proposed_taxonomy(answer, docs, "derived")
    assert [c.short for c in taxonomy.categories] == ["C1", "C2", "C3"]
    assert pools["C1"] == ["starter", "kneading", "proofing"]
    assert pools["C3"] == ["flour", "storage", "rye"]  # 'flour' twice: by its keywords
