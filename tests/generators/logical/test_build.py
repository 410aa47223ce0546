"""Review of engine answers and the files a logical build writes (plain code, no model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Failure
from irforge.generators.logical import steps as review
from irforge.generators.logical.build import (
    Outcome,
    judge_queries,
    query_items,
    write_outcome,
)
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.labels import labels_path, read_violations
from irforge.generators.logical.method import Config as LogicalConfig
from irforge.generators.logical.query_schema import Evidence
from irforge.generators.logical.selection import QueryPlan
from irforge.generators.logical.steps import HypotheticalPassage, QueryItem, StructureJudgment
from irforge.llm import LLMResult
from irforge.prompts import get_template
from irforge.steps import Rejected, run_step
from irforge.steps.runner import BuildRunner

FILMS_A = ("Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014). Quiet Harbor starred "
           "Tomas Reyes and Ada Kim and won the Golden Reed award. Each film cast a well-known "
           "actor.")  # the query's words are the passage's: not an echo of the demonstration
FILMS_B = ("Ada Kim and June Park were both born in Dunmore, while Tomas Reyes was born in Port "
           "Elam. Marco Bell directed Iron Meadow.")
DOCS = [
    Doc("f1", FILMS_A, "Lena Ortiz"), Doc("f2", FILMS_B, "Lena Ortiz"),
    Doc("b1", DEMONSTRATIONS["2p"].passage, "Arden Bridge"),
    Doc("x1", "The harbour seal is a true seal found along temperate coasts.", "Harbour seal"),
    Doc("x2", "Basalt is a fine-grained volcanic rock.", "Basalt"),
    Doc("m1", "Marlow Creek is a town founded in 1881.", "Marlow Creek"),
]
PIN = QueryPlan("lq-pin-0000", "pin", "Lena Ortiz", ("f1", "f2"))
TWO_P = QueryPlan("lq-2p-0000", "2p", "Arden Bridge", ("b1",))
FAILED = QueryPlan("lq-1p-0000", "1p", "Marlow Creek", ("m1",))


def ok(value, raw: str = "{}") -> LLMResult:
    return LLMResult(status="ok", value=value, raw=raw, model="test-model",
                     prompt_id="logical.query")


class Replay:
    """Answers each call with the next of the given results (in item order)."""

    def __init__(self, *results: LLMResult) -> None:
        self.results = list(results)

    def run(self, items, template_name, output_model, step=None, *, sample=0, max_tokens=None):
        return [self.results.pop(0) for _ in items]


def item_for(plan: QueryPlan) -> QueryItem:
    by_id = {doc.doc_id: doc for doc in DOCS}
    return QueryItem(plan, tuple(by_id[i] for i in plan.doc_ids), DEMONSTRATIONS[plan.qtype])


def review_query(plan: QueryPlan, result: LLMResult) -> review.AcceptedQuery | Failure:
    """The query step on one engine result: the accepted query or its Failure."""
    outcome = run_step(Replay(result), review.query_step(), [item_for(plan)])
    return outcome.accepted.get(plan.query_id) or outcome.failures[0]


def pin_output():
    demo = DEMONSTRATIONS["pin"].output
    evidence = [Evidence(passage=1, text="Lena Ortiz directed Quiet Harbor (2011)"),
                Evidence(passage=1, text="Quiet Harbor starred Tomas Reyes and Ada Kim"),
                Evidence(passage=2, text="Tomas Reyes was born in Port Elam.")]
    # the demonstration's query word for word is an echo even where the passages hold its
    # words (a field that is a whole demonstration); the model's answer words it its own way
    return demo.model_copy(update={"evidence": evidence, "query": (
        "Which actor of a Lena Ortiz film was not born in Port Elam?")})


def two_p_output():
    """The 2p demonstration answered in the model's own words over its own passage."""
    return DEMONSTRATIONS["2p"].output.model_copy(update={
        "query": "Where was the engineer behind the Arden Bridge trained?"})


def accepted_pin() -> review.AcceptedQuery:
    verdict = review_query(PIN, ok(pin_output()))
    assert isinstance(verdict, review.AcceptedQuery), verdict
    return verdict


def test_query_items_render_through_the_shipped_template():
    plans, items = query_items(DOCS, LogicalConfig(passage_sentences=0, types=("pin", "1p"),
                                                   per_type=1, seed=3))
    assert [p.qtype for p in plans] == ["pin", "1p"]
    messages = get_template("logical.query").render(**items[0])
    text = messages[-1]["content"]
    assert "Query type: pin" in text and "(A2, R3, ?t)  [negated]" in text
    assert "Which actor starred in a film directed by Lena Ortiz" in text  # the demonstration
    for number, doc_id in enumerate(plans[0].doc_ids, start=1):
        assert f"Passage {number}" in text
        assert next(d.text for d in DOCS if d.doc_id == doc_id) in text


def test_review_accepts_a_conforming_grounded_answer_and_renders_fol():
    item = accepted_pin()
    query = item.to_query(judge_score=4)
    assert query.metadata["type"] == "pin" and query.metadata["answer"] == "Ada Kim"
    assert query.metadata["fol"] == ("V? . ∃V1 : Directed(Lena Ortiz, V1) ∧ Starred(V1, V?) ∧ "
                                     "¬BirthplaceOf(Port Elam, V?)")
    assert query.metadata["triples"]["negation"] == [
        {"subject": "Port Elam", "relation": "birthplace of", "object": "?t"}]
    assert query.metadata["source_doc_ids"] == ["f1", "f2"]
    assert [(e["passage"], e["doc_id"]) for e in query.metadata["evidence"]] == [
        (1, "f1"), (1, "f1"), (2, "f2")]
    assert query.metadata["judge_score"] == 4
    assert item.negated == [{"subject": "Port Elam", "relation": "birthplace of", "object": "?t"}]


def test_review_records_engine_failures_and_rejections_with_reasons():
    failed = review_query(PIN, LLMResult(status="invalid", raw="{oops",
                                         error="JSON does not match"))
    assert isinstance(failed, Failure)
    assert failed.reason == "llm invalid: JSON does not match"
    assert failed.raw_output == "{oops" and failed.metadata["status"] == "invalid"

    as_2in = DEMONSTRATIONS["2in"].output  # a 2in answer offered for a pin plan
    rejected = review_query(PIN, ok(as_2in))
    assert isinstance(rejected, Failure) and rejected.step == "logical.query"
    assert rejected.reason.startswith("rejected: structure: pin needs 2 variable(s)")
    assert "evidence: evidence is not distributed: passage(s) 2" in rejected.reason
    assert rejected.metadata["type"] == "pin" and rejected.metadata["doc_ids"] == ["f1", "f2"]

    lopsided = pin_output().model_copy(update={"evidence": pin_output().evidence[:2]})
    spread = review_query(PIN, ok(lopsided))
    assert isinstance(spread, Failure) and spread.reason.startswith("rejected: evidence:")
    with pytest.raises(Rejected, match=r"^evidence: evidence is not distributed"):
        review.accept_query(item_for(PIN), lopsided)


def test_judge_below_the_bar_rejects_and_keeps_per_pair_judgments():
    item = accepted_pin()
    low = ok(StructureJudgment(score=2, reason="negation is on the film"), '{"score": 2}')
    runner = BuildRunner(Replay(low), Benchmark(Path()), "logical")
    yields, failures = runner.yields, runner.ledger.failures
    kept, rows, scores = judge_queries(runner, [item], 3)
    assert [(j.doc_id, j.label, j.task) for j in rows] == [("f1", 2.0, "logical.structure"),
                                                          ("f2", 2.0, "logical.structure")]
    assert kept == [] and scores == {"lq-pin-0000": 2}
    [failure] = failures
    assert failure.reason.startswith("rejected: judge scored structure 2 < 3")
    assert failure.step == "logical.judge" and failure.raw_output == '{"score": 2}'
    assert yields.steps["logical.judge"].accepted == 0
    assert yields.steps["logical.judge"].rejected == {"rejected: judge scored structure N < N": 1}
    exact = ok(StructureJudgment(score=4, reason="exact"))
    runner.engine = Replay(exact)
    kept, rows, _ = judge_queries(runner, [item], 3)
    assert kept == [item] and len(rows) == 2 and len(failures) == 1


def test_hypothetical_negatives_must_violate_without_naming_the_answer():
    item = accepted_pin()
    assert "(Port Elam, birthplace of, ?t)" in review.hypothetical_variables(item)["negated"]
    good = HypotheticalPassage(title="Tomas Reyes", text=(
        "Tomas Reyes is an actor born in Port Elam who starred in Quiet Harbor, the film Lena "
        "Ortiz directed in 2011, playing a ferry captain."))
    assert review.hypothetical_reasons(item, good) == []
    doc = review.hypothetical_doc(item, good)
    assert isinstance(doc, Doc) and doc.doc_id == "lq-pin-0000-hyp"
    assert doc.metadata == {"synthetic": "hypothetical", "query_id": "lq-pin-0000",
                            "violates_negation": True}
    naming = good.model_copy(update={"text": good.text + " Ada Kim was his co-star."})
    assert review.hypothetical_reasons(item, naming) == ["passage names the answer (Ada Kim)"]
    elsewhere = good.model_copy(update={"text": good.text.replace("Port Elam", "Dunmore")})
    assert review.hypothetical_reasons(item, elsewhere) == [
        "passage never mentions the negated branch's Port Elam"]


class DemoEntry:
    """An engine whose manifest entry says demo grade (the writer reads nothing else)."""

    def manifest_entry(self) -> dict[str, Any]:
        return {"model": "m", "demo_grade": True}


def test_write_outcome_files_qrels_labels_distractors_and_logs(tmp_path):
    pin = accepted_pin()
    two_p = review_query(TWO_P, ok(two_p_output()))
    failure = review_query(FAILED, LLMResult(status="truncated", raw="{", error="cut"))
    hyp = Doc("lq-pin-0000-hyp", "A violating passage about Port Elam.", "Tomas Reyes",
              {"synthetic": "hypothetical", "query_id": "lq-pin-0000",
               "violates_negation": True})
    outcome = Outcome(plans=[PIN, TWO_P, FAILED], accepted=[pin, two_p], failures=[failure],
                      scores={"lq-pin-0000": 4}, hypothetical=[hyp])
    config = LogicalConfig(passage_sentences=0, types=("pin", "2p", "1p"), per_type=1)
    bench = Benchmark(tmp_path)
    runner = BuildRunner.open(DemoEntry(), tmp_path, "logical")
    runner.ledger.failures.append(failure)
    summary = write_outcome(runner, DOCS, outcome, config)

    assert [d.doc_id for d in bench.corpus()] == ["f1", "f2", "b1", "x1", "x2",
                                                  "lq-pin-0000-hyp"]  # m1: sampled, failed
    assert summary.distractors == 2 and summary.accepted == 2 and summary.failures == 1
    assert bench.qrels_dict() == {"lq-pin-0000": {"f1": 1, "f2": 1}, "lq-2p-0000": {"b1": 2}}
    queries = {q.query_id: q for q in bench.queries()}
    assert queries["lq-2p-0000"].metadata["fol"] == (
        "V? . ∃V1 : DesignedBy(Arden Bridge, V1) ∧ TrainedAt(V1, V?)")
    assert read_violations(labels_path(tmp_path)) == {
        "lq-pin-0000": {"f1": 0, "f2": 0, "lq-pin-0000-hyp": 1}}
    assert [f.item_id for f in bench.failures()] == ["lq-1p-0000"]
    manifest = bench.manifest()["steps"]["logical"]
    assert manifest["demo_grade"] is True
    assert manifest["details"]["negation_labels"] == "logical/negation_labels.jsonl"
    assert manifest["counts"]["accepted_by_type"] == {"pin": 1, "2p": 1}
    assert check_benchmark(tmp_path).ok, check_benchmark(tmp_path).problems

    again = BuildRunner.open(DemoEntry(), tmp_path, "logical")  # a re-run, the same failure
    again.ledger.failures.append(failure)
    write_outcome(again, DOCS, outcome, config)
    assert len(list(bench.failures())) == 1
    row = json.loads(bench.queries_path.read_text(encoding="utf-8").splitlines()[0])
    assert row["_id"] == "lq-pin-0000" and row["metadata"]["judge_score"] == 4
