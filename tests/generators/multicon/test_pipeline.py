"""The generator's routing of engine results, on hand-written documents with canned answers.

The engine here answers from a table (the contract's LLMResult shape, pydantic validation like
the real engine); the real engine and model are exercised in test_multicon_e2e.py.
"""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.core.records import Doc
from irforge.generators.multicon import MulticonConfig, generate, get_domain, write_output
from irforge.llm import LLMResult
from irforge.steps.runner import BuildRunner
from tests.generators.multicon.docs import (
    NOVEL,
    NOVEL_CONDITIONS,
    NOVEL_DESCRIPTIVE,
    NOVEL_NEGATIVES,
)


class CannedEngine:
    """Answers each template with a function of the item; validates like the engine does."""

    def __init__(self, answers):
        self.answers = answers
        self.calls: list[tuple[str, int]] = []

    def run(self, items, template_name, output_model, step, sample=0, max_tokens=None):
        self.calls.append((template_name, len(items)))
        results = []
        for item in items:
            answer = self.answers[template_name](item)
            raw = json.dumps(answer)
            try:
                value = output_model.model_validate(answer)
            except ValidationError as exc:
                results.append(LLMResult("invalid", raw=raw, error=str(exc).splitlines()[0],
                                         model="canned", prompt_id=template_name))
                continue
            results.append(LLMResult("ok", value=value, raw=raw, model="canned",
                                     prompt_id=template_name))
        return results


PHRASES = ["1987 novel by Varga", "beekeeper on an island", "won the Harbour Prize"]


def ids_of(item, sentences):
    """The ids of ``sentences`` among the numbered sentences the conditions prompt shows."""
    return [next(i for i, line in enumerate(item["sentences"], start=1) if line.endswith(s))
            for s in sentences]


BAD_DOC = Doc("bad", "One sentence here. Another one there. A third one too. And a fourth.")


def answers(break_negative: str | None = None):
    negatives = dict(zip(NOVEL_CONDITIONS, NOVEL_NEGATIVES, strict=True))
    return {
        "multicon.conditions": lambda item: (
            {"ids": ids_of(item, NOVEL_CONDITIONS)} if NOVEL_CONDITIONS[0] in item["sentences"][0]
            else {"ids": [1, 1, 2]}),
        "multicon.condition_phrase": lambda item: {
            "phrase": PHRASES[NOVEL_CONDITIONS.index(item["sentence"])]},
        # the last two key terms: condition 1's first ones are the title, which a condition
        # must not name (validator method.title)
        "multicon.condition_terms": lambda item: {"terms": list(item["terms"][-2:])},
        "multicon.descriptive_query": lambda item: (
            {"query": "1987 beekeeper"} if item["k"] == 2
            else {"query": NOVEL_DESCRIPTIVE[item["k"]]}),
        "multicon.hard_negative_modify": lambda item: {
            "sentence": item["sentence"] if item["sentence"] == break_negative
            else negatives[item["sentence"]]},
        "decomposition.adaptive": lambda item: {
            "subqueries": [{"text": "all of it",
                            "conditions": list(range(1, len(item["conditions"]) + 1))}]},
    }


@pytest.fixture
def docs():
    return [Doc("salt", NOVEL, title="The Salt Orchard"), BAD_DOC, Doc("tiny", "Too short.")]


def test_build_routes_every_item_to_output_or_failures(docs, tmp_path):
    engine = CannedEngine(answers())
    config = MulticonConfig(domain=get_domain("books"), n=3, adaptive=True)
    runner = BuildRunner.open(engine, tmp_path, "multicon")
    out = generate(docs, engine, config, runner=runner)

    assert [d.doc_id for d in out.docs] == ["salt-pos", "salt-hn2", "salt-hn1", "salt-hn0"]
    ids = sorted(q.query_id for q in out.queries)
    assert ids == ["salt-q1-desc", "salt-q1-inst", "salt-q2-inst", "salt-q3-desc", "salt-q3-inst"]
    q3 = next(q for q in out.queries if q.query_id == "salt-q3-inst")
    assert q3.text == ("Find a book that meets these conditions: 1. 1987 novel by Varga. "
                       "2. beekeeper on an island. 3. won the Harbour Prize.")
    assert q3.metadata["subqueries"]["adaptive"] == [{"text": "all of it",
                                                      "conditions": [1, 2, 3]}]

    reasons = {(f.step, f.item_id): f.reason for f in out.failures}
    assert reasons[("multicon.conditions", "tiny")].startswith("document has 0 sentence(s)")
    # a repeated sentence id is refused on parse (the engine would re-ask)
    assert reasons[("multicon.conditions", "bad")].startswith("llm invalid")
    assert "too short" in reasons[("multicon.descriptive_query", "salt-q2-desc")]
    assert len(out.failures) == 3
    assert all(f.raw_output for f in out.failures if f.item_id != "tiny")
    # every accepted LLM output is logged with its raw text
    assert len(out.accepted) == 1 + 5 + 3 + 2
    assert {j.task for j in out.accepted} >= {"multicon.conditions", "multicon.hard_negative"}

    counts = write_output(runner, out, {"n": 3})
    assert counts["docs"] == 4 and counts["queries"] == 5 and counts["failures"] == 3
    report = check_benchmark(tmp_path)
    assert report.ok, report.problems
    for name in ("sources", "task1", "task2", "task3"):
        assert (tmp_path / "multicon" / f"{name}.jsonl").is_file()
    manifest = Benchmark(tmp_path).manifest()
    assert manifest["steps"]["multicon"]["counts"]["queries"] == 5


def test_instruction_queries_list_picked_terms_and_pass_the_gates(docs):
    from irforge.steps.gates import QueryGates

    engine = CannedEngine(answers())
    taken = "Find a book that meets these conditions: 1. 1987 novel."
    out = generate(docs[:1], engine, MulticonConfig(domain=get_domain("books"), n=3,
                                                    phrases="pick"),
                   gates=QueryGates(existing={"old-q": taken}))
    texts = {q.query_id: q.text for q in out.queries if q.metadata["style"] == "instruction"}
    # q1 would repeat a query the benchmark holds: the gate rejects it, q2 and q3 stay
    assert "salt-q1-inst" not in texts
    assert texts["salt-q2-inst"].startswith(taken[:-1] + ". 2. ")
    assert texts["salt-q3-inst"].startswith(texts["salt-q2-inst"][:-1])
    failure = next(f for f in out.failures if f.item_id == "salt-q1-inst")
    assert failure.step == "multicon.instruction_query"
    assert "gate duplicate" in failure.reason and failure.raw_output == taken
    assert out.yields["multicon.instruction_query"].rejected


def test_a_source_without_any_query_is_left_out(docs):
    from irforge.steps.gates import QueryGates

    engine = CannedEngine(answers())
    engine.answers["multicon.descriptive_query"] = lambda item: {"query": "too short"}
    gates = QueryGates(existing={f"old{k}": "Find a book that meets these conditions: "
                                 + " ".join(f"{i}. {PHRASES[i - 1]}." for i in range(1, k + 1))
                                 for k in (1, 2, 3)})
    out = generate(docs[:1], engine, MulticonConfig(domain=get_domain("books"), n=3),
                   gates=gates)
    assert out.docs == [] and out.queries == []
    assert any(f.step == "multicon.documents" and "no query passed" in f.reason
               for f in out.failures)


def test_a_source_without_every_hard_negative_is_left_out(docs):
    engine = CannedEngine(answers(break_negative=NOVEL_CONDITIONS[1]))
    out = generate(docs[:1], engine, MulticonConfig(domain=get_domain("books"), n=3))
    assert out.docs == [] and out.queries == [] and out.qrels == []
    steps = {f.step: f for f in out.failures}
    assert "unchanged" in steps["multicon.hard_negative"].reason
    assert steps["multicon.hard_negative"].item_id == "salt:c2"
    assert "condition(s) 2" in steps["multicon.documents"].reason


def test_rerun_replaces_own_log_rows_and_keeps_other_steps(docs, tmp_path):
    bench = Benchmark(tmp_path)
    from irforge.core.records import Failure

    bench.add_failures([Failure(step="other.step", item_id="x", reason="kept")])
    config = MulticonConfig(domain=get_domain("books"), n=3)
    for _ in range(2):
        runner = BuildRunner.open(CannedEngine(answers()), tmp_path, "multicon")
        write_output(runner, generate(docs, runner.engine, config, runner=runner), {})
    failures = list(bench.failures())
    assert [f.step for f in failures].count("other.step") == 1
    assert sum(f.step.startswith("multicon.") for f in failures) == 3


def test_padding_is_applied_to_every_variant(docs):
    config = MulticonConfig(domain=get_domain("books"), n=3, pad_to=200, seed=5)
    out = generate(docs[:1], CannedEngine(answers()), config)
    lengths = {d.doc_id: len(d.text.split()) for d in out.docs}
    assert lengths["salt-pos"] >= 200
    assert all(d.metadata["padded_to"] == 200 for d in out.docs)
    again = generate(docs[:1], CannedEngine(answers()), config)
    assert [d.text for d in again.docs] == [d.text for d in out.docs]


def test_config_rejects_bad_parameters():
    with pytest.raises(ValueError, match="strategy"):
        MulticonConfig(domain=get_domain("books"), strategy="invert")
    with pytest.raises(ValueError, match="n must be"):
        MulticonConfig(domain=get_domain("books"), n=0)


def test_given_conditions_skip_step_one_and_are_validated(docs):
    engine = CannedEngine(answers())
    given = {"salt": NOVEL_CONDITIONS, "bad": ["Not in there at all, sadly.", "One sentence here.",
                                              "Another one there."]}
    out = generate(docs[:2], engine, MulticonConfig(domain=get_domain("books"), n=3), given)
    assert "multicon.conditions" not in [name for name, _ in engine.calls]
    assert [d.doc_id for d in out.docs][:1] == ["salt-pos"]
    [failure] = [f for f in out.failures if f.step == "multicon.conditions"]
    assert failure.item_id == "bad" and "does not occur" in failure.reason
    assert failure.metadata["given"] is True


def test_a_rejected_phrase_ends_the_hierarchy_and_each_missing_query_says_why(docs):
    engine = CannedEngine(answers())
    engine.answers["multicon.condition_phrase"] = lambda item: {
        "phrase": NOVEL_CONDITIONS[1] if item["sentence"] == NOVEL_CONDITIONS[1]
        else PHRASES[NOVEL_CONDITIONS.index(item["sentence"])]}  # a copied sentence: rejected
    out = generate(docs[:1], engine, MulticonConfig(domain=get_domain("books"), n=3))
    instruction = sorted(q.query_id for q in out.queries if q.metadata["style"] == "instruction")
    assert instruction == ["salt-q1-inst"]
    reasons = {f.item_id: f.reason for f in out.failures}
    assert "not the sentence" in reasons["salt:p2"]
    for k in (2, 3):
        assert reasons[f"salt-q{k}-inst"].startswith("missing: no usable phrase for condition 2")
    table = out.yields["multicon.instruction_query"]
    assert (table.attempted, table.accepted) == (3, 1)


def test_the_writer_redacts_keys_in_its_logs_like_every_other_method(docs, tmp_path):
    from irforge.core.records import Failure

    runner = BuildRunner.open(CannedEngine(answers()), tmp_path, "multicon")
    out = generate(docs, runner.engine, MulticonConfig(domain=get_domain("books"), n=3),
                   runner=runner)
    out.failures.append(Failure(step="multicon.conditions", item_id="leak",
                                reason="llm error: 401 for key sk-abcdefghijklmnopqrstuvwx",
                                raw_output="Authorization: Bearer sk-abcdefghijklmnopqrstuvwx"))
    write_output(runner, out, {})
    text = (tmp_path / "failures.jsonl").read_text(encoding="utf-8")
    assert "sk-abcdefghijklmnopqrstuvwx" not in text and "leak" in text
