"""``controls_from``: hand-verified queries (the shipped sample, or a user's benchmark folder)
become judge controls too; only queries of a known intent with a document judged relevant."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.records import Doc, Qrel, Query
from irforge.generators.controls import NEAR_MISS, OTHER_DOCUMENT, POSITIVE
from irforge.generators.intents import load_intents
from irforge.generators.relevance.controls import verified_controls


def test_the_shipped_sample_gives_controls_of_its_qa_and_fc_queries() -> None:
    controls = verified_controls("sample", load_intents(), None)
    # 8 hand-written QA/FC queries; the 16 without an intent are left out
    assert len({c.query_id for c in controls}) == 8
    assert {c.intent for c in controls} == {"QA", "FC"}
    positives = {c.query_id: c.doc_id for c in controls if c.kind == POSITIVE}
    assert positives["seed-d01"] == "d01-flood-early-warning"
    assert {c.kind for c in controls} == {POSITIVE, OTHER_DOCUMENT, NEAR_MISS}
    assert controls == verified_controls("sample", load_intents(), None)  # seeded


def test_a_folder_gives_controls_of_its_relevant_judgments_only(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path)
    bench.write_corpus([Doc("a", "The levee at Marrowbridge holds to 3 metres."),
                        Doc("b", "Orchard trees bloom in April in the valley."),
                        Doc("c", "Ferry timetables change in winter.")])
    bench.write_queries([Query("q1", "How high does the Marrowbridge levee hold?",
                               {"intent": "QA"}),
                         Query("q2", "When do the orchard trees bloom?", {}),
                         Query("q3", "Do winter ferries run?", {"intent": "QA"})])
    bench.write_qrels([Qrel("q1", "a", 2), Qrel("q2", "b", 2), Qrel("q3", "c", 1)])
    controls = verified_controls(str(tmp_path), load_intents(), None)
    # q2 has no intent, q3 only a partial judgment: q1 alone is a source
    assert {c.query_id for c in controls} == {"q1"}
    assert [c.doc_id for c in controls if c.kind == POSITIVE] == ["a"]
    with_default = verified_controls(str(tmp_path), load_intents(), "QA")
    assert {c.query_id for c in with_default} == {"q1", "q2"}


def test_a_folder_without_queries_or_qrels_is_a_usage_error(tmp_path: Path) -> None:
    Benchmark(tmp_path).write_corpus([Doc("a", "text")])
    with pytest.raises(IrforgeError, match=r"queries\.jsonl, test\.tsv not found") as info:
        verified_controls(str(tmp_path), load_intents(), None)
    assert info.value.exit_code == 2 and "or 'sample'" in str(info.value)
