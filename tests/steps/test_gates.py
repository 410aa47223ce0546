"""The query quality gates: a fixed set of known-bad queries must stay rejected, known-good pass.

The known-bad set is the contract: a change that lets one of these through loosened a gate.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from pydantic import BaseModel

from irforge.audits.data import near_duplicate_queries
from irforge.check.duplicates import near_duplicate
from irforge.check.query_rules import corpus_language, single_query_reasons
from irforge.core.records import Query
from irforge.steps import Step, run_step
from irforge.steps.gates import QueryGates
from tests.generators.fake_engine import FakeEngine
from tests.steps.hooks import RecordingHook

TITLE = "Sourdough Starter Care"
PASSAGE = ("A sourdough starter is a living culture of flour, water, wild yeast and lactic acid "
           "bacteria. Feed the starter twice a day with equal weights of rye flour and water, "
           "and keep it at about 24 degrees Celsius. A healthy starter doubles in four to six "
           "hours and smells pleasantly sour.")

# (query, gate that must reject it)
KNOWN_BAD = [
    ("", "empty"),
    ("   ", "empty"),
    ("sourdough", "one-word"),
    (TITLE, "title"),
    ("starter care", "title"),
    # the case: title plus the first sentence, copied
    ("Sourdough Starter Care. A sourdough starter is a living culture of flour, water, wild "
     "yeast and lactic acid bacteria.", "copy"),
    ("feed the starter twice a day with equal weights of rye flour and water", "copy"),
    ("healthy starter doubles in four to six hours", "copy"),
    ("starter starter starter feeding schedule", "repetition"),
    ("how to feed how to feed how to feed a starter", "repetition"),
    ("what temperature for a starter??????", "repetition"),
    ("Wie oft muss ich meinen Sauerteig füttern und bei welcher Temperatur?", "language"),
    ("¿Con qué frecuencia debo alimentar la masa madre de centeno?", "language"),
]

KNOWN_GOOD = [
    "how often should I feed a rye sourdough culture",
    "ideal temperature for keeping wild yeast cultures active",
    "signs that a bread starter is healthy",
    "flour to water ratio when feeding a levain",
    "why does my starter smell sour",
]


@pytest.mark.parametrize(("query", "gate"), KNOWN_BAD)
def test_known_bad_queries_stay_rejected(query, gate):
    reasons = single_query_reasons(query, TITLE, PASSAGE, "en")
    assert any(r.startswith(f"gate {gate}:") for r in reasons), reasons


@pytest.mark.parametrize("query", KNOWN_GOOD)
def test_known_good_queries_pass(query):
    assert single_query_reasons(query, TITLE, PASSAGE, "en") == []


def test_language_gate_follows_the_setting_and_can_be_off():
    german = "Wie oft muss ich meinen Sauerteig füttern und bei welcher Temperatur?"
    assert single_query_reasons(german, language="de") == []
    assert single_query_reasons(german, language=None) == []
    assert any("expected 'de'" in r for r in
               single_query_reasons(KNOWN_GOOD[0], language="de"))


def test_corpus_language_is_detected_and_defaults_to_english():
    assert corpus_language([PASSAGE, PASSAGE]) == "en"
    assert corpus_language(["Der Sauerteig wird zweimal am Tag mit Roggenmehl gefüttert und "
                            "bei vierundzwanzig Grad gehalten."]) == "de"
    assert corpus_language([]) == "en"


# an InfoSearch core query: its instructed and reversed versions differ in one or two words
CORE = "How do composers rely on conventional tone-idea associations to make music suggest things?"
NEAR_DUPLICATES = [
    ("how often to feed a sourdough starter", "How often to feed a sourdough starter?"),
    ("feeding schedule for sourdough starters", "sourdough starter feeding schedule"),
    ("how often to feed a sourdough starter", "how often to feed the sourdough starter"),
    ("ideal temperature for a sourdough starter", "ideal temprature for a sourdough starter"),
    ("what is the best flour for a rye starter", "best flour for a rye starter"),
]
DIFFERENT = [
    ("bread recipes from 2019", "bread recipes from 2020"),
    ("a novel that meets 1 condition", "a novel that meets 3 conditions"),
    ("how often to feed a sourdough starter", "how warm to keep a sourdough starter"),
    ("rye starter", "rye starter hydration for a dense loaf"),
    # words of the stopword list that change what is asked are content to the duplicate key
    ("rye starter feeding before baking", "rye starter feeding after baking"),
    ("bread dough with salt", "bread dough without salt"),
    # one content word swapped in a long query: a tiny edit that asks another question
    (f"{CORE} I want documents that are not layman.", f"{CORE} I want documents that are "
     "not expert."),
    (f"{CORE} I want documents that are layman.", f"{CORE} I want documents that are not "
     "layman."),
    ("waterproof hiking boots with wide toe boxes for women walking long distances",
     "waterproof hiking boots with wide toe boxes for men walking long distances"),
]


@pytest.mark.parametrize(("a", "b"), NEAR_DUPLICATES)
def test_near_duplicates_are_recognised(a, b):
    assert near_duplicate(a, b)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_different_queries_are_not_near_duplicates(a, b):
    assert not near_duplicate(a, b)


@pytest.mark.parametrize(("a", "b"), NEAR_DUPLICATES)
def test_the_gate_and_the_audit_reject_the_same_near_duplicates(a, b):
    """One duplicate rule: what the gates reject is what ``irforge audit duplicates``
    reports, and the known near-duplicates stay rejected by both."""
    gates = QueryGates(language=None)
    gates.admit([a], "step x item 1")
    assert any(r.startswith(("gate duplicate", "gate near-duplicate")) for r in gates.check([b]))
    pairs = near_duplicate_queries([Query("a", a), Query("b", b), Query("c", "volcanic ash")])
    assert [(p.query_a, p.query_b) for p in pairs] == [("a", "b")]


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_the_gate_and_the_audit_keep_different_queries(a, b):
    gates = QueryGates(language=None)
    gates.admit([a], "step x item 1")
    assert not any("duplicate" in r for r in gates.check([b]))
    assert near_duplicate_queries([Query("a", a), Query("b", b)]) == []


def test_duplicates_within_a_run_and_across_the_benchmark_are_rejected():
    gates = QueryGates(existing={"q-old": "signs that a bread starter is healthy"})
    assert gates.check(["Signs that a bread starter is healthy!"])[0].startswith(
        "gate duplicate: the same query as benchmark query q-old")
    assert gates.check([KNOWN_GOOD[0]]) == []
    gates.admit([KNOWN_GOOD[0]], "step x item 1")
    assert gates.check(["How often should I feed a rye sourdough culture?"]) == [
        "gate duplicate: the same query as step x item 1"]
    assert gates.check(["how often should I feed rye sourdough cultures"])[0].startswith(
        "gate near-duplicate")
    # two identical queries in one answer
    assert gates.check([KNOWN_GOOD[1], KNOWN_GOOD[1]]) == [
        "gate duplicate: repeats query 1 of the same item"]


def test_benchmark_gates_read_the_folder_and_leave_out_the_builds_own_queries(tmp_path):
    from irforge.core.bench import Benchmark
    from irforge.core.records import Query

    Benchmark(tmp_path).write_queries([Query("mine-1", KNOWN_GOOD[0]),
                                       Query("other-1", KNOWN_GOOD[1])])
    gates = QueryGates.for_benchmark(tmp_path, keep=lambda qid: not qid.startswith("mine-"))
    assert gates.check([KNOWN_GOOD[0]]) == []
    assert gates.check([KNOWN_GOOD[1]])[0].startswith("gate duplicate")


class Keywords(BaseModel):
    summary: str = ""
    keywords: list[str]


def _query_step() -> Step:
    return Step(name="t.queries", template="demo.keywords", output_model=Keywords,
                variables=lambda item: {"title": item["title"], "text": item["text"]},
                item_id=lambda item: item["id"], accept=lambda item, value: value.keywords,
                queries_of=lambda item, value: value,
                source_of=lambda item: (item["title"], item["text"]))


def test_the_runner_applies_the_gates_and_counts_them_by_gate():
    answers = {"copy": ["feed the starter twice a day with equal weights of rye flour and water"],
               "good": [KNOWN_GOOD[0]],
               "same": [KNOWN_GOOD[0]],
               TITLE: [TITLE]}
    engine = FakeEngine({"demo.keywords": lambda item: {"keywords": answers[item["title"]]}})
    items = [{"id": name, "title": name, "text": PASSAGE} for name in answers]
    outcome = run_step(engine, _query_step(), items, samples=1)
    assert list(outcome.accepted) == ["good"]
    reasons = {f.item_id: f.reason for f in outcome.failures}
    assert reasons["copy"].startswith("rejected: gate copy:")
    assert reasons["same"] == "rejected: gate duplicate: the same query as t.queries item good"
    assert reasons[TITLE] == "rejected: gate title: the query is the passage title"
    assert outcome.yield_.rejected == {"rejected: gate copy": 1, "rejected: gate duplicate": 1,
                                       "rejected: gate title": 1}


class _Hook(RecordingHook):
    """A recording hook that may wait for an event (a validator that encodes with the model
    for a while); ``waited`` says whether the event came."""

    def __init__(self, wait: threading.Event | None = None) -> None:
        super().__init__(self._wait if wait is not None else None)
        self.wait, self.waited = wait, True

    def _wait(self) -> None:
        self.waited = bool(self.wait and self.wait.wait(5))


def test_a_slow_validator_of_one_method_does_not_hold_up_another_methods_gates():
    # two methods of one run share the gates; while the first one's validator works (it
    # waits until the second method has admitted its query), the second checks and admits
    admitted = threading.Event()
    gates = QueryGates()
    slow, fast = gates.view(), gates.view()
    slow.validate, fast.validate = _Hook(wait=admitted), _Hook()
    items = [{"id": "a", "title": "a", "text": PASSAGE}]
    slow_engine = FakeEngine({"demo.keywords": lambda item: {"keywords": [KNOWN_GOOD[0]]}})
    fast_engine = FakeEngine({"demo.keywords": lambda item: {"keywords": [KNOWN_GOOD[1]]}})
    outcomes: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: outcomes.setdefault(
        "slow", run_step(slow_engine, _query_step(), items, slow, samples=1)))
    thread.start()
    while not gates._hooks:  # the slow method is in its validator
        time.sleep(0.01)
    outcomes["fast"] = run_step(fast_engine, _query_step(), items, fast, samples=1)
    admitted.set()
    thread.join(10)
    assert slow.validate.waited, "the fast method waited for the slow one's validator"
    assert list(outcomes["slow"].accepted) == list(outcomes["fast"].accepted) == ["a"]
    # what each validator recorded stays with its own query
    assert gates.notes(KNOWN_GOOD[0]) == {"target": {"query": KNOWN_GOOD[0]}}
    assert gates.notes(KNOWN_GOOD[1]) == {"target": {"query": KNOWN_GOOD[1]}}


def test_duplicates_across_methods_are_decided_under_the_lock_whatever_the_screening():
    # both methods screen the same query at once; only the first to decide keeps it
    gates = QueryGates()
    first, second = gates.view(), gates.view()
    first.validate, second.validate = _Hook(), _Hook()
    screened = [view.screen([KNOWN_GOOD[2]]) for view in (first, second)]
    with gates.lock:
        assert first.decide([KNOWN_GOOD[2]], screened[0]) == []
        first.admit([KNOWN_GOOD[2]], "first item a")
        reasons = second.decide([KNOWN_GOOD[2]], screened[1])
    assert reasons == ["gate duplicate: the same query as first item a"]


def test_a_later_method_decides_after_the_earlier_one_whatever_the_timing():
    # the later method screens the query first, yet the earlier method keeps it: the later
    # one's gates decide only once the earlier method has decided its last query
    gates = QueryGates()
    earlier_done = threading.Event()
    earlier, later = gates.view(), gates.view()
    later.after = (earlier_done,)
    query = KNOWN_GOOD[2]
    reasons: list[list[str]] = []
    thread = threading.Thread(target=lambda: reasons.append(
        later.settle([query], later.screen([query]), "logical item b")))
    thread.start()
    thread.join(0.3)
    assert thread.is_alive(), "the later method decided before the earlier one ended"
    assert earlier.settle([query], earlier.screen([query]), "intents item a") == []
    earlier_done.set()
    thread.join(5)
    assert reasons == [["gate duplicate: the same query as intents item a"]]
    assert gates.view().after == () and later.view().after == (earlier_done,)
