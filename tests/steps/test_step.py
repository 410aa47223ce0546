"""The shared step runner: every item is accepted or has a Failure, and the yield adds up."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from irforge.core.errors import EmptyResultError
from irforge.steps import Rejected, Step, StepYield, run_step
from irforge.steps.yields import YieldTable, require_yield
from tests.generators.fake_engine import FakeEngine


class Keywords(BaseModel):
    keywords: list[str]


def _no_stopwords(item: dict, value: Keywords) -> list[str]:
    return [f"keyword {k!r} is a stop-word" for k in value.keywords if k in {"the", "a"}]


def _accept(item: dict, value: Keywords) -> list[str]:
    if item["doc"] == "reject-me":
        raise Rejected("keywords not in the document")
    return value.keywords


STEP = Step(name="demo.keywords", template="demo.keywords", output_model=Keywords,
            variables=lambda item: {"title": item["doc"], "text": item["doc"]},
            item_id=lambda item: item["doc"], validators=(_no_stopwords,), accept=_accept,
            metadata=lambda item: {"source_doc": item["doc"]})

ANSWERS = {"good": {"summary": "s", "keywords": ["river", "flood"]},
           "stop": {"summary": "s", "keywords": ["the", "flood"]},
           "reject-me": {"summary": "s", "keywords": ["x"]},
           "broken": "{not json"}


def test_every_item_is_accepted_or_has_a_failure_with_its_reason() -> None:
    engine = FakeEngine({"demo.keywords": lambda item: ANSWERS[item["title"]]})
    items = [{"doc": name} for name in ANSWERS]
    outcome = run_step(engine, STEP, items)
    assert outcome.accepted == {"good": ["river", "flood"]}
    reasons = {f.item_id: f.reason for f in outcome.failures}
    assert reasons["stop"] == "rejected: keyword 'the' is a stop-word"
    assert reasons["reject-me"] == "rejected: keywords not in the document"
    assert reasons["broken"].startswith("llm invalid")
    assert all(f.step == "demo.keywords" for f in outcome.failures)
    assert [j.query_id for j in outcome.judgments] == ["good"]
    assert outcome.yield_.attempted == 4 and outcome.yield_.accepted == 1
    assert outcome.yield_.rejected == {"llm invalid": 1, "rejected: keyword '…' is a stop-word": 1,
                                       "rejected: keywords not in the document": 1}


def test_items_are_grouped_by_output_model_and_results_stay_in_order() -> None:
    class Two(Keywords):
        pass

    step = Step(name="s", template="demo.keywords",
                output_model=lambda item: Two if item["doc"] == "b" else Keywords,
                variables=lambda item: {"title": item["doc"], "text": item["doc"]},
                item_id=lambda item: item["doc"])
    engine = FakeEngine({"demo.keywords": lambda item: {"summary": "",
                                                       "keywords": [item["title"]]}})
    outcome = run_step(engine, step, [{"doc": "a"}, {"doc": "b"}, {"doc": "c"}])
    assert list(outcome.accepted) == ["a", "b", "c"]
    # each item was parsed with its own model: b with Two, a and c with Keywords
    assert type(outcome.accepted["b"]) is Two and type(outcome.accepted["a"]) is Keywords
    assert [call[1]["title"] for call in engine.calls] == ["a", "c", "b"]


def test_a_run_that_accepts_nothing_is_an_error_naming_the_reasons() -> None:
    table = YieldTable().extend([StepYield("x.queries", 5, 0, {"llm truncated": 4,
                                                               "rejected: copied": 1})])
    with pytest.raises(EmptyResultError) as info:
        require_yield(table, "queries")
    message = str(info.value)
    assert "0 queries accepted (5 item(s) attempted)" in message
    assert "llm truncated (x4): raise --max-tokens" in message
    assert info.value.exit_code == 3
    with pytest.raises(EmptyResultError, match="no queries were attempted"):
        require_yield(YieldTable(), "queries")
    require_yield(YieldTable().extend([StepYield("x", 2, 1)]), "queries")  # no error


def test_yield_table_renders_and_round_trips_through_the_manifest() -> None:
    table = YieldTable().extend([StepYield("a", 3, 2, {"llm invalid": 1}), StepYield("a", 1, 1)])
    assert table.steps["a"].attempted == 4 and table.accepted == 3
    again = YieldTable.from_manifest(table.to_manifest())
    assert again.to_manifest() == table.to_manifest()
    assert "| a | 4 | 3 | llm invalid x1 |" in table.markdown()
    assert table.render().splitlines()[1].split()[:3] == ["a", "4", "3"]


def test_reason_keys_are_whole_clauses_never_cut_mid_phrase() -> None:
    from irforge.steps.step import reason_key

    assert reason_key("rejected: the query is not self-contained: it says 'this'") == \
        "rejected: the query is not self-contained"
    assert reason_key("rejected: judge scored structure 2 < 3") == \
        "rejected: judge scored structure N < N"
    assert reason_key("rejected: keyword 'the' is a stop-word") == \
        "rejected: keyword '…' is a stop-word"
    assert reason_key("rejected: keyword 'river' is a stop-word") == \
        reason_key("rejected: keyword 'the' is a stop-word")  # counted together
    assert reason_key("rejected: repeats the prompt's example ('x'), not the document") == \
        "rejected: repeats the prompt's example"
    assert reason_key("rejected: too short, 3 words") == "rejected: too short"
    long = "rejected: one two three four five six seven eight nine ten"
    assert reason_key(long) == "rejected: one two three four five six seven eight …"
    assert reason_key("llm invalid: not JSON") == "llm invalid"
