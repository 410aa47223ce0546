"""Ensembles, binarization, the CoT phase rule and pair files, on hand-written labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.core.errors import FormatError, IrforgeError
from irforge.generators.intents import load_intents
from irforge.generators.relevance import Binarization, check_cot_phase, cot_bounds, get_ensemble
from irforge.generators.relevance.aggregate import is_flagged, round_half_up
from irforge.generators.relevance.build import LabelSettings, ensemble
from irforge.generators.relevance.pairs import read_pairs
from irforge.generators.relevance.steps import Pair, PhaseViolation
from irforge.generators.relevance.strategies import Outcome


@pytest.mark.parametrize(("method", "labels", "expected"), [
    ("mean", [3, 2, 2], 7 / 3),
    ("mean", [0, 1], 0.5),
    ("median", [0, 3, 1], 1.0),
    ("median", [1, 2], 1.5),
    ("mode", [3, 2, 2], 2.0),
    ("mode", [1, 3], 1.0),          # tie: the lower label
    ("mode", [3, 3, 0, 0, 1], 0.0),  # tie: the lower label
    ("majority", [2, 2, 3], 2.0),
    ("majority", [1, 3, 2], None),   # no label given by more than half
    ("majority", [1, 1], 1.0),
    ("mean", [], None),
])
def test_ensembles_on_hand_written_labels(method: str, labels: list[int],
                                          expected: float | None) -> None:
    result = get_ensemble(method)(labels)
    assert result == (pytest.approx(expected) if expected is not None else None)


def test_unknown_ensemble_is_a_clear_error() -> None:
    with pytest.raises(IrforgeError, match="choose one of"):
        get_ensemble("max")


@pytest.mark.parametrize(("spec", "score", "label"), [
    ("graded", 2.5, 3), ("graded", 1.5, 2), ("graded", 0.49, 0), ("graded", 7 / 3, 2),
    (">0", 0.0, 0), (">0", 1 / 3, 1), (">=2", 5 / 3, 0), (">=2", 2.0, 1), ("> 1.5", 1.5, 0),
])
def test_binarization(spec: str, score: float, label: int) -> None:
    assert Binarization(spec).label(score) == label


def test_bad_binarization_names_the_accepted_forms() -> None:
    with pytest.raises(IrforgeError, match="'graded', '>T' or '>=T'"):
        Binarization("<1")


def test_round_half_up_differs_from_bankers_rounding() -> None:
    assert [round_half_up(v) for v in (0.5, 1.5, 2.5)] == [1, 2, 3]


def test_cot_phase_one_no_allows_only_0_or_1() -> None:
    assert cot_bounds("No") == (0, 1) and cot_bounds("Yes") == (2, 3)
    assert check_cot_phase("No", 1) == 1 and check_cot_phase("Yes", 2) == 2
    for score in (2, 3):
        with pytest.raises(PhaseViolation, match="must be 0 or 1"):
            check_cot_phase("No", score)
    with pytest.raises(PhaseViolation):
        check_cot_phase("Yes", 1)
    with pytest.raises(ValueError):
        cot_bounds("Maybe")


def _pair(query: str, doc: str, intent: str = "QA") -> Pair:
    return Pair(query, doc, "q text", "p text", load_intents()[intent])


def test_ensemble_rows_qrels_and_consistency_flags() -> None:
    pairs = [_pair("q1", "gen_q1"), _pair("q1", "d9"), _pair("q2", "gen_q2"),
             _pair("q3", "gen_q3", "STS"), _pair("q4", "d1")]

    def outcomes(labels: dict[int, int | None]) -> dict[int, Outcome]:
        return {i: Outcome("x", label=label) for i, label in labels.items()}

    by_strategy = {
        "zero_shot": outcomes({0: 3, 1: 1, 2: 3, 3: 5, 4: None}),
        "cot": outcomes({0: 3, 1: 0, 2: 2, 4: None}),
        "multi_dim": outcomes({0: 2, 1: 0, 2: 2, 4: None}),
    }
    positives = {("q1", "gen_q1"), ("q2", "gen_q2"), ("q3", "gen_q3")}
    rows, qrels, failures = ensemble(pairs, by_strategy, LabelSettings(), positives)
    by_pair = {(row["query_id"], row["doc_id"]): row for row in rows}
    assert by_pair[("q1", "gen_q1")]["graded"] == 3 and not by_pair[("q1", "gen_q1")]["flagged"]
    assert by_pair[("q2", "gen_q2")]["graded"] == 2 and by_pair[("q2", "gen_q2")]["flagged"]
    assert by_pair[("q3", "gen_q3")]["top_label"] == 5 and not by_pair[("q3", "gen_q3")]["flagged"]
    assert not by_pair[("q1", "d9")]["flagged"]  # not a generated positive: never flagged
    assert {(q.query_id, q.doc_id): q.relevance for q in qrels} == {
        ("q1", "gen_q1"): 3, ("q1", "d9"): 0, ("q2", "gen_q2"): 2, ("q3", "gen_q3"): 5}
    assert [(f.item_id, f.reason) for f in failures] == [("q4::d1", "no strategy produced a label")]
    _, binary, _ = ensemble(pairs, by_strategy, LabelSettings(binarization=">0"), positives)
    assert {(q.query_id, q.doc_id): q.relevance for q in binary}[("q1", "d9")] == 1
    assert is_flagged(2, 3) and not is_flagged(3, 3)


def test_pair_files_in_every_accepted_format(tmp_path: Path) -> None:
    jsonl = tmp_path / "pairs.jsonl"
    jsonl.write_text('{"query_id": "q1", "doc_id": "d1"}\n'
                     '{"query_id": "q2", "doc_ids": ["d2", "d3"]}\n', encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d4 1 9.5 bm25\nq1 Q0 d5 2 8.0 bm25\n", encoding="utf-8")
    tsv = tmp_path / "qrels.tsv"
    tsv.write_text("query-id\tcorpus-id\tscore\nq3\td6\t1\n", encoding="utf-8")
    got = [(r.query_id, r.doc_id) for path in (jsonl, run, tsv) for r in read_pairs(path)]
    assert got == [("q1", "d1"), ("q2", "d2"), ("q2", "d3"), ("q1", "d4"), ("q1", "d5"),
                   ("q3", "d6")]


def test_bad_pair_line_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"query_id": "q1", "doc_id": "d1"}\n{"query_id": "q2"}\n', encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_pairs(path)
    problem = info.value.problem
    assert (problem.path, problem.line, problem.field) == (path, 2, "doc_id")
