"""build_intents orchestration with a scripted engine double: files, metadata, failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.jsonl import iter_jsonl
from irforge.core.records import Doc, Qrel, Query
from irforge.generators.intents import (
    ChosenTaxonomy,
    build_intents,
    load_intents,
    load_taxonomy,
    select_intents,
)
from irforge.steps.runner import BuildRunner
from tests.generators.fake_engine import FakeEngine

# the last sentence grounds the query-length attribute the scripted queries repeat
DOCS = [Doc(f"d{i}", f"Flood report {i}: the flood gauge rose to {i}.5 metres. Its summaries "
            "run fewer than 10, 5 to 20, at least 50 or at least 150 words.", title=f"T{i}")
        for i in range(3)]


def _taxonomy(tmp_path: Path) -> ChosenTaxonomy:
    path = tmp_path / "tax.yaml"
    path.write_text("categories:\n  - {name: Flood, keywords: [flood]}\n", encoding="utf-8")
    return ChosenTaxonomy(load_taxonomy(path))


def _query_answer(item: Any) -> Any:
    if "d1" in item["passage"] or "report 1" in item["passage"]:
        return {"query": "copy", "passage": item["passage"]}  # copies the seed: rejected
    number = item["passage"].split()[2].rstrip(":")
    return {"query": f"How high did flood gauge {number} rise in the report? "
                      f"({item['query_length']})",
            "passage": "The gauge reading was given in the flood report."}


ENGINE_ANSWERS = {
    "intents.qa_needs": lambda item: {"needs": ["the flood gauge level",
                                                "the flood report number"]},
    "intents.qa_query": _query_answer,
    "intents.qadoc_needs": lambda item: '{"needs": [',  # malformed: every QAdoc item fails
    "intents.qadoc_query": lambda item: {"query": "unused"},
}


def test_build_writes_queries_generated_passages_tasks_and_failures(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    bench.write_queries([Query("other1", "kept from another generator", {"generated_by": "x"})])
    engine = FakeEngine(ENGINE_ANSWERS)
    # asked for questions: the scripted answers are questions whatever the form
    intents = [i.model_copy(update={"forms": ["question"]})
               for i in select_intents(load_intents(), ["QA", "QAdoc"])]
    run = build_intents(BuildRunner.open(engine, bench.root, "intents"), DOCS, intents,
                        _taxonomy(tmp_path), per_task=3, seed=5, keep_generated=True)
    assert run.counts["planned"] == 6 and run.counts["tasks"] == 2
    queries = {q.query_id: q for q in bench.queries()}
    assert "other1" in queries
    made = [q for q in queries.values() if q.metadata.get("generated_by") == "intents"]
    assert len(made) == run.counts["queries"] == 2  # 3 QA planned, the one seeded by d1 rejected
    for query in made:
        meta = query.metadata
        assert meta["intent"] == "QA" and meta["category"] == "Flood"
        assert meta["task_prefix"] == load_intents()["QA"].task_prefix
        assert meta["attributes"]["query_length"] in query.text
        assert meta["need"] in ("the flood gauge level", "the flood report number")
        assert meta["positive_doc_id"] == f"gen_{query.query_id}"
        # the form asked for and DisastIR's attributes are recorded on the query
        assert meta["query_form"] == "question" and "stance" not in meta
        assert meta["length"] == meta["attributes"]["query_length"]
        assert meta["education"] == meta["attributes"]["difficulty"] and meta["clarity"]
    corpus = {doc.doc_id: doc for doc in bench.corpus()}
    assert {"d0", "d1", "d2"} <= set(corpus)
    generated = [doc for doc in corpus.values() if doc.metadata.get("generated")]
    assert len(generated) == 2 and all(doc.metadata["intent"] == "QA" for doc in generated)
    failures = list(bench.failures())
    reasons = sorted(f.reason.removeprefix("llm ").split(":")[0] for f in failures)
    assert len(failures) == 4 and reasons.count("invalid") + reasons.count("error") == 3
    copied = [f for f in failures if "copies the seed" in f.reason]
    assert len(copied) == 1 and copied[0].raw_output
    tasks = [row for _, row in iter_jsonl(bench.root / "intents" / "tasks.jsonl")]
    assert [(t["task"], t["planned"], t["queries"]) for t in tasks] == [
        ("QA_Flood", 3, 2), ("QAdoc_Flood", 3, 0)]


def test_rebuild_replaces_its_own_output_and_reuses_nothing_twice(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    taxonomy = _taxonomy(tmp_path)
    intents = select_intents(load_intents(), ["QA"])
    build_intents(BuildRunner.open(FakeEngine(ENGINE_ANSWERS), bench.root, "intents"), DOCS,
                  intents, taxonomy, 2, seed=1, keep_generated=True)
    first = [(q.query_id, q.text) for q in bench.queries()]
    # second run reads the bench's own corpus, which now holds generated passages
    engine = FakeEngine(ENGINE_ANSWERS)
    build_intents(BuildRunner.open(engine, bench.root, "intents"), list(bench.corpus()), intents,
                  taxonomy, 2, seed=1, keep_generated=True)
    assert [(q.query_id, q.text) for q in bench.queries()] == first
    corpus = list(bench.corpus())
    assert len(corpus) == len({doc.doc_id for doc in corpus}) == 3 + len(first)
    seeds = {item["passage"] for name, item in engine.calls if name == "intents.qa_needs"}
    assert all(not passage.startswith("The gauge reading") for passage in seeds)


def test_dry_run_estimates_without_generating(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")

    engine = FakeEngine(ENGINE_ANSWERS)
    run = build_intents(BuildRunner.open(engine, bench.root, "intents"), DOCS,
                        select_intents(load_intents(), ["QA"]), _taxonomy(tmp_path), per_task=4,
                        dry_run=True)
    assert run.estimate["requests"] == 8  # two stages x four planned queries
    assert run.estimate["max_cost_usd"] == 0.016
    assert engine.calls == [] and not bench.queries_path.exists()


def test_building_another_intent_merges_and_keeps_the_first(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    taxonomy = _taxonomy(tmp_path)
    qa, fc = (select_intents(load_intents(), [name]) for name in ("QA", "FC"))
    answers = {**ENGINE_ANSWERS, "intents.fc_needs": ENGINE_ANSWERS["intents.qa_needs"],
               "intents.fc_query": lambda item: {
                   "query": f"Flood gauge {item['passage'].split()[2]} passed ten metres.",
                   "passage": "The flood gauge stayed under ten metres."}}
    build_intents(BuildRunner.open(FakeEngine(answers), bench.root, "intents"), DOCS, qa, taxonomy,
                  2, seed=1, keep_generated=True)
    qa_queries = {q.query_id: q.text for q in bench.queries()}
    qa_docs = {d.doc_id for d in bench.corpus() if d.metadata.get("generated")}
    bench.write_qrels([Qrel(next(iter(qa_queries)), "d0", 2)])
    build_intents(BuildRunner.open(FakeEngine(answers), bench.root, "intents"),
                  list(bench.corpus()), fc, taxonomy, 2, seed=1, keep_generated=True)
    queries = {q.query_id: q for q in bench.queries()}
    assert {k: queries[k].text for k in qa_queries} == qa_queries  # QA kept as it was
    assert {q.metadata["intent"] for q in queries.values()} == {"QA", "FC"}
    generated = {d.doc_id for d in bench.corpus() if d.metadata.get("generated")}
    assert qa_docs < generated
    assert bench.qrels_dict() == {next(iter(qa_queries)): {"d0": 2}}
    tasks = [row["task"] for _, row in iter_jsonl(bench.root / "intents" / "tasks.jsonl")]
    assert tasks == ["QA_Flood", "FC_Flood"]


def test_a_query_that_repeats_the_prompts_example_is_rejected(tmp_path: Path) -> None:
    """Known-bad output of small models: the worked example's query, returned for a seed
    passage that happens to share its words (so the grounding check alone would pass it)."""
    seed = Doc("p0", "Flood gates open each time the river pool rises past the mark on "
                     "Saturday mornings. The keeper of the Marrow Bridge station writes each "
                     "opening in the district flood register.", title="Flood gates")
    answers = {
        "intents.qa_needs": lambda item: {"needs": ["when the flood gates open"]},
        "intents.qa_query": lambda item: {
            "query": "What time does the pool open on Saturday?",
            "passage": "Flood gates open on Saturday mornings when the river is high."},
    }
    bench = Benchmark(tmp_path / "bench")
    engine = FakeEngine(answers)
    run = build_intents(BuildRunner.open(engine, bench.root, "intents"), [seed],
                        select_intents(load_intents(), ["QA"]), _taxonomy(tmp_path), per_task=1,
                        seed=0)
    assert run.counts["queries"] == 0
    reasons = [f.reason for f in bench.failures() if f.step == "intents.query"]
    # the validator registry's echo rule, run by the gates on the same sample
    assert reasons and all("validator echo:" in r and "repeats the template intents."
                           in r for r in reasons), reasons


def test_picked_need_is_a_seed_sentence_and_a_qa_query_must_be_a_question(tmp_path: Path) -> None:
    """The small-model set-up of the demo: step 1 picks a sentence by id (an enum), step 2
    writes from that fact alone; a QA statement is rejected, a question is kept."""
    from irforge.check.form import is_question  # the registry's rule (form.intent_type)
    from irforge.generators.intents.steps import PICK_NEED_TEMPLATE

    seed = Doc("p0", "Flood gates close at dusk. The river gauge at Marrow Bridge reads "
                     "three metres in spring. Engineers check the gauge readings every morning "
                     "before the gates open again.", title="Flood gates")
    qa = select_intents(load_intents(), ["QA"])[0].model_copy(update={
        "needs_template": PICK_NEED_TEMPLATE, "query_template": "intents.sentence_query",
        "forms": ["question"]})
    asked: list[Any] = []

    def query(item: Any) -> Any:
        asked.append(item["task"])
        return {"query": "The gauge at Marrow Bridge shows the spring river level.",
                "passage": "In spring the Marrow Bridge gauge stands at three metres."}

    answers = {PICK_NEED_TEMPLATE: lambda item: {"ids": [2]}, "intents.sentence_query": query}
    bench = Benchmark(tmp_path / "bench")
    run = build_intents(BuildRunner.open(FakeEngine(answers), bench.root, "intents"), [seed], [qa],
                        _taxonomy(tmp_path), per_task=1, seed=0)
    assert asked and set(asked) == {"The river gauge at Marrow Bridge reads three metres in "
                                    "spring."}
    assert run.counts["queries"] == 0
    assert any("asks for a question" in f.reason for f in bench.failures())
    assert is_question("What does the Marrow Bridge gauge read in spring?")
    assert is_question("how high is the river in spring") and not is_question("River levels.")


def test_a_user_intents_query_form_is_checked_by_the_registry(tmp_path: Path) -> None:
    """An intent from --intents-file (unknown to builtin_intents.yaml) that asks for a question
    still has its statements rejected: the step hands its query form to form.intent_type."""
    seed = Doc("p0", "The flood gauge at Marrow Bridge reads three metres in late spring. "
               "Engineers check the upstream gauge readings every single morning before the "
               "two gates open.",
               title="Flood gauge")
    ask = select_intents(load_intents(), ["QA"])[0].model_copy(update={"name": "ASK"})
    answers = {"intents.qa_needs": lambda item: {"needs": ["the flood gauge in spring"]},
               "intents.qa_query": lambda item: {
                   "query": "The flood gauge at Marrow Bridge in spring.", "passage": "x"}}
    bench = Benchmark(tmp_path / "bench")
    run = build_intents(BuildRunner.open(FakeEngine(answers), bench.root, "intents"), [seed], [ask],
                        _taxonomy(tmp_path), per_task=1, seed=0)
    assert run.counts["queries"] == 0
    reasons = [f.reason for f in bench.failures() if f.step == "intents.query"]
    assert reasons and all("validator form.intent_type: intent 'ASK' asks for a question"
                           in r for r in reasons), reasons


def test_seeds_come_from_the_selector_never_from_stubs_or_contents(tmp_path: Path) -> None:
    """A contents page and a one-line stub sit first in the corpus; every query's seed is a
    prose passage the selector chose, recorded with its reason and score, and the manifest
    counts what was chosen and why the rest was rejected."""
    contents = Doc("toc", "Flood report 1. Flood report 2. Flood gauges. Flood levees. Index.",
                   title="Contents")
    stub = Doc("stub", "Flood: see the flood report.", title="Flood")
    bench = Benchmark(tmp_path / "bench")
    run = build_intents(BuildRunner.open(FakeEngine(ENGINE_ANSWERS), bench.root, "intents"),
                        [contents, stub, *DOCS], select_intents(load_intents(), ["QA"]),
                        _taxonomy(tmp_path), per_task=4, seed=1)
    made = [q for q in bench.queries() if q.metadata.get("generated_by") == "intents"]
    assert made and len(made) == run.counts["queries"]
    for query in made:
        source = query.metadata["source"]
        assert query.metadata["seed_doc_id"] in {"d0", "d1", "d2"}
        assert source["id"] == query.metadata["seed_doc_id"]
        assert source["reason"].startswith("informative score") and source["score"] > 0
    table = bench.manifest()["steps"]["intents"]["details"]["sources"]
    assert table["chosen"] == 3 and table["rejected"] == 2
    assert set(table["rejected_by_reason"]) == {"contents_or_licence_page", "too_short"}


def test_a_corpus_with_no_passage_worth_asking_about_names_why(tmp_path: Path) -> None:
    stubs = [Doc(f"s{i}", f"Flood page {i}: see the flood report.", title="Flood")
             for i in range(3)]
    bench = Benchmark(tmp_path / "bench")
    with pytest.raises(IrforgeError, match=r"no passage of the corpus is worth generating "
                                           r"from \(3 rejected: too_short: 3; e\.g\. s0"):
        build_intents(BuildRunner.open(FakeEngine(ENGINE_ANSWERS), bench.root, "intents"),
                      stubs, select_intents(load_intents(), ["QA"]), _taxonomy(tmp_path),
                      per_task=1, seed=0)


@pytest.mark.parametrize(("profile", "whole"), [("small", False), ("capable", True)])
def test_a_capable_model_reads_the_whole_seed_passage(tmp_path: Path, profile: str,
                                                      whole: bool) -> None:
    """A small model sees the first SEED_WORDS words of a long seed (it copies the start of
    a long passage); a capable model sees all of it, the text grounding checks against."""
    from irforge.generators.intents.steps import SEED_WORDS

    tail = "The levee held after the last sandbag wall was finished at dawn."
    filler = " ".join(f"Flood gauge {i} rose to {i}.5 metres." for i in range(25))
    long_doc = Doc("long", f"{filler} {tail}", title="Flood log")
    assert len(long_doc.text.split()) > SEED_WORDS
    engine = FakeEngine(ENGINE_ANSWERS)
    engine.profile = profile  # type: ignore[attr-defined]
    build_intents(BuildRunner.open(engine, tmp_path / "bench", "intents"), [long_doc],
                  select_intents(load_intents(), ["QA"]), _taxonomy(tmp_path), per_task=1)
    shown = [values["passage"] for name, values in engine.calls if name.startswith("intents.")]
    assert shown and all((tail in passage) is whole for passage in shown)
    assert all(passage.endswith(" ...") is not whole for passage in shown)
