"""Jobs review what the generators write: a MultiConIR folder built from canned answers gives
``hard_negative`` items with the condition and the rewritten sentence, and the LLM's implied
answer on the job's scale; logical judgments feed ``logical_structure``."""

from __future__ import annotations

from pathlib import Path

from irforge.annotation.items import bench_items
from irforge.annotation.labeling import get_job
from irforge.annotation.push import task_for
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Judgment, Query
from irforge.generators.multicon import MulticonConfig, generate, get_domain, write_output
from tests.generators.multicon.docs import NOVEL, NOVEL_CONDITIONS, NOVEL_NEGATIVES
from tests.generators.multicon.test_pipeline import CannedEngine, answers


def test_hard_negative_job_on_a_freshly_built_multicon_folder(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "multicon")
    config = MulticonConfig(domain=get_domain("books"), n=3)
    write_output(bench, generate([Doc("salt", NOVEL, title="The Salt Orchard")],
                                 CannedEngine(answers()), config), {})
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
