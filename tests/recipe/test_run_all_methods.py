"""``irforge.run``: all four methods plus relevance labeling built into one folder, in this
process, against the scripted OpenAI-compatible server over real HTTP.

Asserts what the one build runner promises: every method's manifest entry has the same keys
(the engine under ``engine``), one gate index spans the whole run (a query two methods both
write is kept once and rejected once, naming the other method), and every method ends the
same way: exit 4 when the budget stopped it, exit 3 when it kept nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import irforge
from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.llm import Engine
from irforge.methods import Inputs, get_method
from irforge.steps.gates import QueryGates
from irforge.steps.runner import MANIFEST_KEYS, BuildRunner
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.generators.intents.test_scenario import BREAD
from tests.generators.multicon.docs import (
    NOVEL,
    NOVEL_CONDITION_IDS,
    NOVEL_CONDITIONS,
    NOVEL_DESCRIPTIVE,
    NOVEL_NEGATIVES,
    descriptive_marker,
)

# a 2in document and answer of the demonstration's shape but not its words (an answer that
# repeats the prompt's demonstration is rejected by the echo validator)
FILMS = ("Nadia Okafor directed the film Copper Lake (2009) and the film Winter Docks (2013). "
         "Copper Lake starred Ivo Lenz and won the Silver Gull award; Winter Docks did not win "
         "the Silver Gull award. Ivo Lenz was born in Harwick.")
SHARED = "Which film directed by Nadia Okafor did not win the Silver Gull award?"
LOGICAL_2IN = DEMONSTRATIONS["2in"].output.model_copy(update={
    "query": SHARED, "answer": "Winter Docks",
    "triples": DEMONSTRATIONS["2in"].output.triples.model_copy(update={
        "intersection": [DEMONSTRATIONS["2in"].output.triples.intersection[0].model_copy(
            update={"subject": "Nadia Okafor"})],
        "negation": [DEMONSTRATIONS["2in"].output.triples.negation[0].model_copy(
            update={"subject": "Silver Gull"})]}),
    "evidence": [DEMONSTRATIONS["2in"].output.evidence[0].model_copy(update={
        "text": "Nadia Okafor directed the film Copper Lake (2009) and the film Winter Docks "
                "(2013)."}),
                 DEMONSTRATIONS["2in"].output.evidence[1].model_copy(update={
                     "text": "Winter Docks did not win the Silver Gull award."})]})
# a second 2in document only logical asks about, so logical keeps a query though intents keeps
# SHARED (the stages run in parallel; intents comes first in the methods' order)
PLAYS = ("Ivo Lenz directed the plays Red Quay (2015) and Low Tide (2017). Red Quay starred "
         "Mei Lund and won the Copper Mask prize; Low Tide did not win the Copper Mask prize.")
LOGICAL_PLAYS = LOGICAL_2IN.model_copy(update={
    "query": "Which play directed by Ivo Lenz did not win the Copper Mask prize?",
    "answer": "Low Tide",
    "triples": LOGICAL_2IN.triples.model_copy(update={
        "intersection": [LOGICAL_2IN.triples.intersection[0].model_copy(
            update={"subject": "Ivo Lenz"})],
        "negation": [LOGICAL_2IN.triples.negation[0].model_copy(
            update={"subject": "Copper Mask"})]}),
    "evidence": [LOGICAL_2IN.evidence[0].model_copy(update={
        "text": "Ivo Lenz directed the plays Red Quay (2015) and Low Tide (2017)."}),
                 LOGICAL_2IN.evidence[1].model_copy(update={
                     "text": "Low Tide did not win the Copper Mask prize."})]})


def _ruled_out(entity: str, meets: str, ruled_out: str) -> dict:
    """What a negation query's answer names as ruled out (a capable model is asked for it)."""
    return {"excluded": [{"entity": entity, "meets": {"passage": 1, "text": meets},
                          "ruled_out": {"passage": 1, "text": ruled_out}}]}


LOGICAL_2IN_ANSWER = {**LOGICAL_2IN.model_dump(), **_ruled_out(
    "Copper Lake", "Nadia Okafor directed the film Copper Lake (2009)",
    "Copper Lake starred Ivo Lenz and won the Silver Gull award")}
LOGICAL_PLAYS_ANSWER = {**LOGICAL_PLAYS.model_dump(), **_ruled_out(
    "Red Quay", "Ivo Lenz directed the plays Red Quay (2015)",
    "Red Quay starred Mei Lund and won the Copper Mask prize")}
# (file, title, text, the question intents writes, the need it serves)
DOCS = [*BREAD,
        ("salt", "The Salt Orchard", NOVEL,
         "Who wrote the island beekeeper novel that won the Harbour Prize?",
         "who wrote the beekeeper novel"),
        ("films", "Lena Ortiz filmography", FILMS, SHARED, "which Ortiz film won nothing"),
        ("plays", "Harwick Playhouse programme", PLAYS, "Who starred in Red Quay?",
         "who starred in the Lenz play Red Quay")]
AUDIENCE = {"layman": "written for a general reader in plain words, without technical jargon",
            "expert": "written for specialists in technical, professional language"}
METHODS = ("intents", "logical", "multicon", "instructions")


def _intents_rules() -> list[Rule]:
    rules = []
    for _, _, text, question, need in DOCS:
        rules.append(Rule(f"{text}\nGive ", (Action.answer({"needs": [need]}),)))
        rules.append(Rule(f"{text}\n\nNeed: ", (Action.answer(
            {"query": question, "passage": f"{need.capitalize()}: see the baking notes."}),)))
    return rules


def _instructions_rules() -> list[Rule]:
    rules = []
    for _, _, text, question, need in DOCS:
        # the given passage is a seed, rewritten for each audience: two different texts (near
        # copies would not differ on the condition)
        half = " ".join(text.split()[:len(text.split()) // 2])
        rewrites = {"layman": f"In plain words: {need}. {text} See the baking notes.",
                    "expert": f"For specialists, {need}: {half} (technical summary)."}
        for condition, description in AUDIENCE.items():
            rules.append(Rule(f"{text}\n\nWrite the same facts again so that the text is "
                              f"{description}",
                              (Action.answer({"document": rewrites[condition]}),)))
        for condition, description in AUDIENCE.items():
            rules.append(Rule(f'("{condition}"), that is, {description}.\nSearch query: {question}',
                              (Action.answer({"instructed_query": (
                                  f"{question} I only want documents for a {condition}.")}),)))
            rules.append(Rule(f"Its requirement (audience): {condition}\nSearch query: {question}",
                              (Action.answer({"reversed_query": (
                                  f"{question} I want documents that are not {condition}.")}),)))
    return rules


def _multicon_rules() -> list[Rule]:
    rules = [Rule("Mara's brother returns", (Action.answer({"ids": NOVEL_CONDITION_IDS}),))]
    phrases = ["1987 novel by Varga", "beekeeper on an island", "won the Harbour Prize"]
    for sentence, phrase in zip(NOVEL_CONDITIONS, phrases, strict=True):
        prompt = f'Sentence: {sentence}\n\nAnswer with a JSON object with one key, "phrase"'
        rules.append(Rule(prompt, (Action.answer({"phrase": phrase}),)))
    for k in range(1, 4):
        rules.append(Rule(descriptive_marker(k), (Action.answer(
            {"query": NOVEL_DESCRIPTIVE[k]}),)))
    for original, negative in zip(NOVEL_CONDITIONS, NOVEL_NEGATIVES, strict=True):
        rules.append(Rule(f"Sentence: {original}", (Action.answer({"sentence": negative}),)))
    return rules


def good_script() -> Script:
    """Well-formed answers for every step of every method; anything else gets ``{}``."""
    rules = [*_intents_rules(),
             Rule('Answer as {"final_score"', (Action.answer({"final_score": 3}),)),
             *_instructions_rules(),
             Rule("Red Quay (2015)", (Action.answer(LOGICAL_PLAYS_ANSWER),)),
             Rule("Query type: 2in", (Action.answer(LOGICAL_2IN_ANSWER),)),
             *_multicon_rules()]
    return Script(default=Action.answer({}), rules=tuple(rules))


# the scripted judge answers 3 for every pair, which its control items rightly catch
# (tests/generators/relevance/test_controls.py); here labeling runs with controls off
RECIPE = """corpus: {{input: docs, max_tokens: 1024, passage_dedup: false}}
model: openai/scripted
api_base: {url}
methods:
  intents: {{intents: [QA], per_task: 4, taxonomy: lexical}}
  logical: {{types: [2in], per_type: 8, passage_sentences: 0}}
  multicon: {{n: 3, limit: null, domain: books}}
  instructions: {{from: intents, dimension: audience}}
pool: {{retrievers: [bm25], k: 3}}
label: {{strategies: [zero_shot], controls: false}}
eval: {{retrievers: [bm25], metrics: [ndcg@10]}}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("run-all")
    docs = root / "docs"
    docs.mkdir()
    for key, title, text, _, _ in DOCS:
        (docs / f"{key}.txt").write_text(f"{title}\n\n{text}\n", encoding="utf-8")
    with ScriptedServer(good_script()) as server, pytest.MonkeyPatch.context() as patch:
        (root / "recipe.yaml").write_text(RECIPE.format(url=server.url), encoding="utf-8")
        patch.setattr(QueryGates, "screen", _intents_screens_shared_late(QueryGates.screen))
        report = irforge.run(root / "recipe.yaml", root / "bench", echo=lambda line: None)
    return root / "bench", report


def _intents_screens_shared_late(screen: Callable[..., Any]) -> Callable[..., Any]:
    """``screen``, 3 s slower for intents' copy of SHARED: logical, which builds beside it,
    reaches SHARED first, and which method keeps it must not depend on that."""
    def late(gates: QueryGates, queries: Sequence[str], source: Any = None,
             metadata: Any = None) -> Any:
        if SHARED in queries and "intent" in (metadata or {}):
            time.sleep(3)
        return screen(gates, queries, source, metadata)
    return late


def test_every_method_and_labeling_build_into_one_folder(built) -> None:
    out, report = built
    status = {r.name: (r.status, r.detail) for r in report.results}
    assert report.exit_code == 0, status
    assert all(state == "done" for state, _ in status.values()), status
    for method in METHODS:
        assert list(Benchmark(out / method).queries()), method
    assert Benchmark(out / "intents").qrels_dict()  # labeled by the relevance method


def test_every_method_writes_one_manifest_layout(built) -> None:
    out, _ = built
    entries = {method: Benchmark(out / method).manifest()["steps"][method]
               for method in METHODS}
    entries["relevance"] = Benchmark(out / "intents").manifest()["steps"]["relevance"]
    for name, entry in entries.items():
        assert set(entry) == {*MANIFEST_KEYS, "finished"}, name
        assert entry["engine"]["model"] == "openai/scripted", name
        assert entry["yield"] and entry["counts"], name


def test_one_gate_index_rejects_a_query_two_methods_wrote_once(built) -> None:
    # the methods build in parallel and logical reaches SHARED first (the fixture slows
    # intents' copy), yet intents, first in the methods' order, keeps it and logical's copy
    # is the duplicate; instructions builds its units on the intents query (its core query)
    out, _ = built
    kept = {method: [q for q in Benchmark(out / method).queries() if q.text == SHARED]
            for method in METHODS}
    assert [method for method, queries in kept.items() if queries and method != "instructions"
            ] == ["intents"] and len(kept["intents"]) == 1
    assert {q.metadata["core_query_id"] for q in kept["instructions"]} \
        == {kept["intents"][0].query_id}
    across = [(method, f.reason) for method in METHODS
              for f in Benchmark(out / method).failures()
              if f.reason.startswith("rejected: gate duplicate")
              and (("logical" in f.reason) != (method == "logical"))]
    assert across == [("logical", "rejected: gate duplicate: the same query as intents.query "
                                  f"item {kept['intents'][0].query_id}")], across


def test_every_kept_query_of_every_method_carries_the_rank_its_positive_reached(built) -> None:
    """The target validator's record, copied by the gates that passed the query: each
    retriever's rank of its positive, the best, and the method's k and corpus size."""
    out, _ = built
    for method in METHODS:
        bench = Benchmark(out / method)
        setting = bench.manifest()["steps"][method]["details"]["validation"]["target"]
        assert setting["k_given"] is None and setting["retrievers"] == ["bm25"], method
        queries = list(bench.queries())
        assert queries, method
        for query in queries:
            target = query.metadata.get("target")
            assert target, (method, query.query_id, query.metadata)
            assert set(target["ranks"]) == {"bm25"}, (method, target)
            assert target["rank"] == target["ranks"]["bm25"] and target["retrievable"]
            assert 1 <= target["rank"] <= target["k"] == setting["k"], (method, target)
            assert target["corpus_size"] == setting["corpus_size"], (method, target)
            assert target["positives"], (method, target)


def _method_run(name: str, out: Path, folder: Path, url: str, **engine: object) -> int:
    """Build ``name`` alone into ``folder`` on a fresh runner; its exit code (0 when ok)."""
    method = get_method(name)
    config = method.config.model_validate(
        {"intents": {"intents": ["QA"], "per_task": 4, "taxonomy": "lexical"},
         "logical": {"types": ["2in"], "per_type": 8, "passage_sentences": 0},
         "multicon": {"n": 3, "limit": None, "domain": "books"},
         "instructions": {"dimension": "audience"},
         "relevance": {"strategies": ["zero_shot"]}}[name])
    source = {"instructions": out / "intents",
              "relevance": out / "intents" / "pool" / "candidates.jsonl"}.get(name)
    if name == "relevance":  # labeling writes into a copy of the labeled folder
        import shutil

        shutil.copytree(out / "intents", folder, ignore=shutil.ignore_patterns(".irforge"))
        source = folder / "pool" / "candidates.jsonl"
    with Engine("openai/scripted", api_base=url, cache_path=folder.parent / f"{name}.sqlite",
                progress=False, **engine) as llm:
        try:
            method.run(BuildRunner.open(llm, folder, name), config,
                       Inputs(out / "corpus.jsonl", source))
        except IrforgeError as exc:
            return exc.exit_code
    return 0


@pytest.mark.parametrize("name", [*METHODS, "relevance"])
def test_budget_stop_and_kept_nothing_exit_the_same_in_every_method(built, name, tmp_path):
    out, _ = built
    with ScriptedServer(good_script()) as server:
        stopped = _method_run(name, out, tmp_path / "stopped", server.url, budget_usd=1e-9,
                              price_per_mtok=(1000.0, 1000.0), concurrency=1)
    with ScriptedServer(Script(default=Action.answer({}), rules=())) as server:
        empty = _method_run(name, out, tmp_path / "empty", server.url)
    assert (stopped, empty) == (4, 3)
    failures = [json.loads(line) for line in
                (tmp_path / "empty" / "failures.jsonl").read_text().splitlines()]
    assert failures and all(row["reason"] for row in failures)
