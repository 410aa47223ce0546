"""Jobs review what the generators write: a MultiConIR folder built from canned answers gives
``hard_negative`` items with the condition and the rewritten sentence, and the LLM's implied
answer on the job's scale; logical judgments feed ``logical_structure``. Every job also finds
its items on a folder written by its real ``irforge build`` command (tests/annotation/built.py),
the same folders the browser round trip (test_jobs_in_browser.py) pushes to Label Studio."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.annotation.items import MISSING, bench_items
from irforge.annotation.labeling import get_job
from irforge.annotation.push import task_for
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Judgment, Query
from irforge.generators.multicon import MulticonConfig, generate, get_domain, write_output
from irforge.steps.runner import BuildRunner
from tests.generators.multicon.docs import NOVEL, NOVEL_CONDITIONS, NOVEL_NEGATIVES
from tests.generators.multicon.test_pipeline import CannedEngine, answers

from .built import BUILDS, build_for


def test_hard_negative_job_on_a_freshly_built_multicon_folder(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "multicon")
    config = MulticonConfig(domain=get_domain("books"), n=3)
    runner = BuildRunner.open(CannedEngine(answers()), bench.root, "multicon")
    write_output(runner, generate([Doc("salt", NOVEL, title="The Salt Orchard")],
                                  runner.engine, config, runner=runner), {})
    assert {j.task for j in bench.judgments()} >= {"multicon.hard_negative"}
    job = get_job("hard_negative")
    items = bench_items(bench, job)
    assert len(items) == len(NOVEL_CONDITIONS)
    negatives = set(NOVEL_NEGATIVES)
    for item in items:
        assert item.data["sentence"] in negatives
        assert item.data["condition"] and item.data["condition"] != "(not available)"
        assert item.data["irforge_task"] == "hard_negative"
        assert item.llm and set(item.llm.values()) == {0.0}  # "no longer satisfies"
        review = task_for(item, job, show_predictions=True)
        assert review["predictions"][0]["result"][0]["value"]["choices"] == ["no"]


def test_logical_structure_job_reads_the_generator_judge_step(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "logical")
    bench.write_corpus([Doc("d1", "Odile Varga wrote The Salt Orchard.")])
    bench.write_queries([Query("lq-2in-0000", "novels by Varga not about bees", {
        "type": "2in", "triples": '[["Varga", "wrote", "The Salt Orchard"]]'})])
    # as irforge.generators.logical.build writes its judge scores
    bench.add_judgments([Judgment("lq-2in-0000", "d1", 3.0, "llm", task="logical.structure",
                                  prompt_id="logical.judge", model="m",
                                  metadata={"reason": "keeps the negation", "type": "2in"})])
    items = bench_items(bench, get_job("logical_structure"))
    assert len(items) == 1 and items[0].llm == {"logical.judge": 3.0}
    data = items[0].data
    assert data["type_definition"].startswith("2in: a one-hop set minus another")
    assert "Salt Orchard" in data["triples"]


def test_instruction_compliance_job_on_a_freshly_built_instructions_folder(
        tmp_path: Path) -> None:
    from tests.generators.instructions.test_schema_and_yield import EXPERT, Pair, _build

    pair = Pair("q1", "How do flood warnings work?", Doc("e1", EXPERT), "audience", None)
    _build(tmp_path / "b", [pair])
    bench = Benchmark(tmp_path / "b")
    assert "instructions.rewrite" in {j.task for j in bench.judgments()}
    job = get_job("instruction_compliance")
    items = bench_items(bench, job)
    assert items
    corpus = {doc.doc_id: doc for doc in bench.corpus()}
    for item in items:
        assert item.data["query"] == "How do flood warnings work?"
        assert item.data["instruction"] not in ("", "(not available)")
        assert item.doc_id in corpus and corpus[item.doc_id].text in item.data["passage"]
        assert set(item.llm.values()) == {1.0}  # an accepted rewrite claims it complies


def test_sts_pairs_go_to_the_sts_job_and_not_to_relevance(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "intents")
    bench.write_corpus([Doc("p1", "Sirens sound when the river rises."),
                        Doc("p2", "Warnings go out when the river reaches 3 m.")])
    bench.write_queries([Query("s1", "The sirens go off as the river comes up.",
                               {"intent": "STS"}),
                         Query("a1", "when do sirens sound", {"intent": "QA"})])
    # as irforge.generators.relevance writes its labels: task "relevance", 0-5 for STS
    bench.add_judgments([
        Judgment("s1", "p1", 5.0, "llm", task="relevance", prompt_id="relevance.zero_shot"),
        Judgment("a1", "p2", 2.0, "llm", task="relevance", prompt_id="relevance.zero_shot")])
    sts = bench_items(bench, get_job("sts"))
    assert [(i.query_id, i.llm["relevance.zero_shot"]) for i in sts] == [("s1", 5.0)]
    assert sts[0].data["query"].startswith("The sirens") and sts[0].data["irforge_task"] == "sts"
    relevance = bench_items(bench, get_job("relevance"))
    assert [i.query_id for i in relevance] == ["a1"]


def test_evidence_distribution_job_reads_kept_logical_queries(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "logical")
    bench.write_corpus([Doc("d1", "Odile Varga wrote The Salt Orchard."),
                        Doc("d2", "The Salt Orchard won the Harbour Prize.")])
    bench.write_queries([Query("lq-2i-0000", "prize-winning novels by Varga", {
        "type": "2i", "source_doc_ids": ["d1", "d2"],
        "evidence": [{"passage": 1, "text": "Odile Varga wrote", "doc_id": "d1"},
                     {"passage": 2, "text": "won the Harbour Prize", "doc_id": "d2"}]})])
    # as run_step logs an accepted logical.query output (doc id = the query id)
    bench.add_judgments([Judgment("lq-2i-0000", "lq-2i-0000", 1.0, "llm", task="logical.query",
                                  prompt_id="logical.query", metadata={"type": "2i"})])
    [item] = bench_items(bench, get_job("evidence_distribution"))
    assert item.llm == {"logical.query": 1.0}
    assert "[1]" in item.data["passages"] and "Harbour Prize" in item.data["passages"]
    assert "won the Harbour Prize" in item.data["evidence"]


def test_audit_agreement_pairs_people_with_the_generator_step_they_reviewed(
        tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from irforge.cli.app import build_app

    bench = Benchmark(tmp_path / "multicon")
    config = MulticonConfig(domain=get_domain("books"), n=3)
    runner = BuildRunner.open(CannedEngine(answers()), bench.root, "multicon")
    write_output(runner, generate([Doc("salt", NOVEL, title="The Salt Orchard")],
                                  runner.engine, config, runner=runner), {})
    items = bench_items(bench, get_job("hard_negative"))
    # two people: both agree with the model (0) except on the first rewrite
    bench.add_judgments([Judgment(item.query_id, item.doc_id, float(index == 0 and person),
                                  "human", task="hard_negative", annotator=f"p{person}")
                         for index, item in enumerate(items) for person in (0, 1)])
    done = CliRunner().invoke(build_app(), ["audit", "agreement", str(bench.root), "--task",
                                            "hard_negative", "--resamples", "20",
                                            "--tie-break", "lower"])
    assert done.exit_code == 0, done.output
    report = json.loads((bench.root / "audits" / "agreement_hard_negative.json").read_text())
    assert report["pairs"] == len(items) == 3
    assert report["human_reliability"]["annotators"] == 2


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_every_job_has_items_on_the_folder_its_build_command_writes(tmp_path: Path,
                                                                    name: str) -> None:
    bench = build_for(name, tmp_path)
    job = get_job(name)
    items = bench_items(bench, job)
    assert 2 <= len(items) <= 4
    queries = {query.query_id for query in bench.queries()}
    corpus = {doc.doc_id for doc in bench.corpus()}
    for item in items:
        # every job's items name the folder's queries and passages (a hard negative: the
        # MultiConIR passage with that sentence, not the condition key `salt:c1`)
        assert item.query_id in queries and item.doc_id in corpus  # what the folder kept
        assert item.data["irforge_task"] == name
        assert MISSING not in item.data.values(), item.data
        assert not any(text.startswith(("{'", "[{'", "{\"")) for text in item.data.values()
                       if isinstance(text, str))  # plain lines, never a Python repr


def test_logical_triples_and_evidence_read_as_lines(tmp_path: Path) -> None:
    bench = build_for("logical_structure", tmp_path)
    shown = {item.query_id: item.data for item in bench_items(bench, get_job("logical_structure"))}
    assert shown["lq-2in-0000"]["triples"].splitlines() == [
        "intersection: Nadia Okafor | directed | ?t", "negation: Silver Gull | awarded to | ?t"]
    evidence = {item.query_id: item.data for item in
                bench_items(bench, get_job("evidence_distribution"))}["lq-2in-0000"]
    assert evidence["evidence"].splitlines()[0] == (
        "[1] Nadia Okafor directed Copper Lake (2011) and Winter Docks (2014).")
    assert evidence["passages"].startswith("[1] Films of Nadia Okafor: Nadia Okafor directed")


def test_audit_agreement_pairs_instruction_labels_on_the_instructed_query(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from irforge.cli.app import build_app

    bench = build_for("instruction_compliance", tmp_path)
    items = bench_items(bench, get_job("instruction_compliance"))
    # each query's seed is rewritten for both audiences: one item per instructed query
    assert {item.query_id for item in items} == {"q1-audience-expert", "q1-audience-layman",
                                                 "q2-audience-expert", "q2-audience-layman"}
    assert all(j.query_id in ("q1", "q2") for j in bench.judgments()
               if j.task == "instructions.rewrite")  # logged under the core query
    bench.add_judgments([Judgment(item.query_id, item.doc_id, float(person or index), "human",
                                  task="instruction_compliance", annotator=f"p{person}")
                         for index, item in enumerate(items) for person in (0, 1)])
    done = CliRunner().invoke(build_app(), ["audit", "agreement", str(bench.root), "--task",
                                            "instruction_compliance", "--resamples", "20"])
    assert done.exit_code == 0, done.output
    report = json.loads((bench.root / "audits" /
                         "agreement_instruction_compliance.json").read_text())
    assert report["pairs"] == len(items) == 4
