from __future__ import annotations

import pytest

from irforge.core.records import Doc
from irforge.generators.multicon.steps import validate_conditions
from irforge.generators.multicon.task_files import (
    SourceParts,
    build_documents,
    build_qrels,
    build_queries,
    build_task_rows,
    fixed_size_decomposition,
    naive_decomposition,
    source_row,
)
from tests.generators.multicon.docs import NOVEL, NOVEL_CONDITIONS, NOVEL_NEGATIVES


@pytest.fixture
def parts():
    located = validate_conditions(NOVEL_CONDITIONS, NOVEL, 3)
    phrases = {1: ["1987 novel by Varga"], 2: ["1987 novel by Varga", "beekeeper on an island"],
               3: ["1987 novel by Varga", "beekeeper on an island", "won the Harbour Prize"]}
    return SourceParts(
        doc=Doc("salt", NOVEL, title="The Salt Orchard"), domain="books", strategy="modify",
        conditions=located, hard_negatives=NOVEL_NEGATIVES,
        instruction={k: v for k, v in phrases.items() if k != 2},
        instruction_text={1: "Find a book: 1. 1987 novel by Varga.",
                          3: "Find a book: 1. x. 2. y. 3. z."},
        descriptive={1: "A 1987 novel by Varga.", 2: "A 1987 Varga novel about a beekeeper.",
                     3: "A prize-winning 1987 Varga novel about an island beekeeper."})


def test_documents_have_ids_and_satisfied_counts(parts):
    docs = build_documents(parts)
    assert [d.doc_id for d in docs] == ["salt-pos", "salt-hn2", "salt-hn1", "salt-hn0"]
    assert [d.metadata["satisfied"] for d in docs] == [3, 2, 1, 0]
    assert docs[0].text == NOVEL and docs[0].metadata["kind"] == "positive"
    assert {d.metadata["kind"] for d in docs[1:]} == {"hard_negative"}
    assert all(d.title == "The Salt Orchard" and d.metadata["source_doc"] == "salt" for d in docs)


def test_queries_carry_k_style_conditions_and_decompositions(parts):
    queries = {q.query_id: q for q in build_queries(parts)}
    assert sorted(queries) == ["salt-q1-desc", "salt-q1-inst", "salt-q2-desc", "salt-q3-desc",
                               "salt-q3-inst"]
    q3 = queries["salt-q3-inst"].metadata
    assert q3["k"] == 3 and q3["style"] == "instruction" and q3["pair_query"] == "salt-q3-desc"
    assert q3["conditions"] == NOVEL_CONDITIONS
    assert q3["subqueries"]["naive"] == [
        {"text": "1987 novel by Varga", "conditions": [1]},
        {"text": "beekeeper on an island", "conditions": [2]},
        {"text": "won the Harbour Prize", "conditions": [3]}]
    assert q3["subqueries"]["fixed_size"] == [
        {"text": "1987 novel by Varga; beekeeper on an island; won the Harbour Prize",
         "conditions": [1, 2, 3]}]
    q2 = queries["salt-q2-desc"].metadata
    assert q2["pair_query"] is None
    assert q2["phrase_source"] == "condition_sentences"
    assert q2["condition_phrases"] == NOVEL_CONDITIONS[:2]


def test_graded_qrels_grow_with_satisfied_conditions(parts):
    queries = build_queries(parts)
    qrels = {(q.query_id, q.doc_id): q.relevance for q in build_qrels(parts, queries)}
    assert qrels[("salt-q3-inst", "salt-pos")] == 3
    assert [qrels[("salt-q3-inst", f"salt-hn{j}")] for j in (2, 1, 0)] == [2, 1, 0]
    assert [qrels[("salt-q1-desc", d)] for d in ("salt-pos", "salt-hn2", "salt-hn1",
                                                 "salt-hn0")] == [1, 1, 1, 0]
    assert len(qrels) == 5 * 4


def test_task_rows(parts):
    queries = build_queries(parts)
    rows = build_task_rows(parts, queries)
    task1 = {r["query_id"]: r for r in rows["task1"]}
    assert task1["salt-q2-desc"]["positive"] == "salt-pos"
    assert task1["salt-q2-desc"]["hard_negative"] == "salt-hn1"
    assert task1["salt-q1-inst"]["hard_negative"] == "salt-hn0"
    assert task1["salt-q3-inst"]["satisfied"] == {"positive": 3, "hard_negative": 2}
    assert sorted(r["query_id"] for r in rows["task2"]) == ["salt-q3-desc", "salt-q3-inst"]
    assert [c["satisfied"] for c in rows["task2"][0]["candidates"]] == [3, 2, 1, 0]
    assert rows["task3"] == [{"source_doc": "salt", "k": 3, "instruction_query": "salt-q3-inst",
                              "descriptive_query": "salt-q3-desc",
                              "candidates": rows["task2"][0]["candidates"]}]


def test_source_row_lists_conditions_with_spans_and_negatives(parts):
    row = source_row(parts)
    assert row["positive"] == "salt-pos" and row["hard_negatives"]["0"] == "salt-hn0"
    first = row["conditions"][0]
    assert NOVEL[first["start"]:first["end"]] == first["text"] == NOVEL_CONDITIONS[0]
    assert first["hard_negative"] == NOVEL_NEGATIVES[0]


@pytest.mark.parametrize(("n", "sizes"), [(1, [1]), (3, [3]), (4, [2, 2]), (5, [3, 2]),
                                          (7, [3, 2, 2]), (10, [3, 3, 2, 2])])
def test_fixed_size_groups_two_to_three_conditions(n, sizes):
    groups = fixed_size_decomposition([f"c{i}" for i in range(1, n + 1)])
    assert [len(g["conditions"]) for g in groups] == sizes
    assert [i for g in groups for i in g["conditions"]] == list(range(1, n + 1))
    assert naive_decomposition(["a", "b"]) == [{"text": "a", "conditions": [1]},
                                               {"text": "b", "conditions": [2]}]
