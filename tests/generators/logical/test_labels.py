"""Evidence distribution, passage selection, distractors, graded qrels and LSNC labels."""

from __future__ import annotations

import json

import pytest

from irforge.core.errors import FormatError
from irforge.core.records import Doc, Qrel
from irforge.generators.logical.labels import (
    graded_qrels,
    labels_path,
    negation_labels,
    read_violations,
    write_negation_labels,
)
from irforge.generators.logical.query_schema import Evidence, LogicalQueryOutput
from irforge.generators.logical.selection import (
    SelectionError,
    group_docs,
    group_key,
    plan_queries,
    select_distractors,
    split_passages,
)
from irforge.generators.logical.steps import (
    answer_parts,
    answer_problems,
    evidence_problems,
    quote_found,
)
from irforge.generators.logical.structure import TripleGroups
from irforge.generators.logical.types import get_type, parse_types

P1 = "Lena Ortiz directed Quiet Harbor in 2011. The film was shot in Dunmore."
P2 = "Quiet Harbor starred Ada Kim, who was born in Port Elam."


def output(evidence: list[tuple[int, str]], answer: str = "Ada Kim",
           query: str = "Who starred in the film Lena Ortiz directed in 2011?",
           ) -> LogicalQueryOutput:
    return LogicalQueryOutput(query=query, answer=answer, triples=TripleGroups(),
                              evidence=[Evidence(passage=n, text=text) for n, text in evidence])


def test_quote_found_tolerates_small_copy_edits_but_not_invention():
    assert quote_found("Lena Ortiz directed Quiet Harbor in 2011", P1)
    assert quote_found("lena ortiz directed quiet harbor in 2011.", P1)
    assert quote_found("Lena Ortiz directed the Quiet Harbor in 2011", P1)  # one added word
    assert not quote_found("Lena Ortiz won an Oscar for Quiet Harbor in Paris", P1)
    assert not quote_found("", P1)


def test_evidence_from_every_passage_passes():
    good = output([(1, "Lena Ortiz directed Quiet Harbor in 2011."),
                   (2, "Quiet Harbor starred Ada Kim")])
    assert evidence_problems(good, [P1, P2]) == []


def test_evidence_missing_from_one_passage_of_a_multi_passage_query_is_rejected():
    lopsided = output([(1, "Lena Ortiz directed Quiet Harbor in 2011."),
                       (1, "The film was shot in Dunmore.")])
    problems = evidence_problems(lopsided, [P1, P2])
    assert problems == ["evidence is not distributed: passage(s) 2 carry none of it (every "
                        "passage of a multi-passage query must carry part of the evidence)"]


def test_evidence_that_cites_a_missing_passage_or_is_invented_is_rejected():
    problems = evidence_problems(output([(3, "anything"), (1, "Ada Kim won a Golden Reed")]),
                                 [P1, P2])
    assert problems[0] == "evidence cites passage 3 but only 2 passage(s) were given"
    assert problems[1].startswith("evidence 'Ada Kim won a Golden Reed' is not found in passage 1")
    assert "passage(s) 1, 2 carry none" in problems[2]
    assert evidence_problems(output([]), [P1]) == ["no supporting evidence given"]
    assert evidence_problems(output([(1, "Ada Kim won")]), [P1]) == [
        "evidence 'Ada Kim won' is not found in passage 1"]


def test_single_passage_query_needs_one_grounded_quote():
    assert evidence_problems(output([(1, "The film was shot in Dunmore.")]), [P1]) == []


def test_answer_must_be_in_the_passages_and_not_in_the_query():
    assert answer_problems(output([]), [P1, P2]) == []
    assert answer_problems(output([], answer="Tom Hanks"), [P1, P2]) == [
        "answer 'Tom Hanks' does not appear in the passages"]
    leaked = output([], answer="Quiet Harbor", query="Who directed Quiet Harbor?")
    assert answer_problems(leaked, [P1]) == ["the query gives away its answer (Quiet Harbor)"]
    assert answer_problems(output([], answer=" , "), [P1]) == ["the answer is empty"]
    assert answer_parts("Ada Kim, Tomas Reyes and June Park") == ["Ada Kim", "Tomas Reyes",
                                                                  "June Park"]


def docs_with_titles(spec: dict[str, int]) -> list[Doc]:
    return [Doc(f"{title[:1].lower()}{i}", f"text {title} {i}", title=title)
            for title, count in spec.items() for i in range(count)]


def test_grouping_by_title_or_metadata_key_and_untitled_passages_stand_alone():
    docs = [Doc("a", "x", title="Aaron"), Doc("b", "y", title="Aaron"), Doc("c", "z"),
            Doc("d", "w", metadata={"article": "Moses"})]
    assert {k: [d.doc_id for d in v] for k, v in group_docs(docs).items()} == {
        "Aaron": ["a", "b"], "doc:c": ["c"], "doc:d": ["d"]}
    assert group_key(docs[3], "article") == "Moses"
    assert group_key(docs[0], "article") == "doc:a"


def test_plans_are_seeded_share_a_group_and_respect_passage_limits():
    docs = docs_with_titles({"Aaron": 3, "Bach": 2, "Cairo": 1, "Dune": 3})
    types = parse_types("1p,2p,3i,pin")
    plans = plan_queries(docs, types, per_type=4, seed=7)
    assert plans == plan_queries(docs, types, per_type=4, seed=7)
    assert plans != plan_queries(docs, types, per_type=4, seed=8)
    by_id = {d.doc_id: d for d in docs}
    assert [p.query_id for p in plans[:2]] == ["lq-1p-0000", "lq-1p-0001"]
    for plan in plans:
        assert {by_id[i].title for i in plan.doc_ids} == {plan.group}
        assert 1 <= len(plan.doc_ids) <= get_type(plan.qtype).max_passages
        assert len(set(plan.doc_ids)) == len(plan.doc_ids)
    assert {len(p.doc_ids) for p in plans if p.qtype == "1p"} == {1}
    assert max(len(p.doc_ids) for p in plans) >= 2  # multi-passage queries do occur
    # Adding a type leaves the other types' plans unchanged.
    more = plan_queries(docs, parse_types("1p,2p,3i,pin,2u"), per_type=4, seed=7)
    assert more[:16] == plans


def test_plans_avoid_repeating_passages_until_exhausted():
    docs = docs_with_titles({"Aaron": 1, "Bach": 1, "Cairo": 1})
    plans = plan_queries(docs, [get_type("1p")], per_type=3, seed=0)
    assert sorted(p.doc_ids for p in plans) == [("a0",), ("b0",), ("c0",)]
    assert len(plan_queries(docs, [get_type("1p")], per_type=5, seed=0)) == 5


def test_max_passages_one_forces_single_passage_queries():
    docs = docs_with_titles({"Aaron": 3})
    plans = plan_queries(docs, parse_types("3i"), per_type=5, seed=1, max_passages=1)
    assert {len(p.doc_ids) for p in plans} == {1}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"per_type": 0}, "per-type must be at least 1"),
    ({"per_type": 1, "max_passages": 4}, "max passages must be 1, 2 or 3"),
])
def test_bad_plan_requests_are_explained(kwargs, message):
    with pytest.raises(SelectionError, match=message):
        plan_queries(docs_with_titles({"A": 1}), parse_types("1p"), **kwargs)
    with pytest.raises(SelectionError, match="no passages"):
        plan_queries([], parse_types("1p"), per_type=1)


def test_distractors_have_titles_disjoint_from_sampled_ones():
    docs = docs_with_titles({"Aaron": 2, "Bach": 2, "Cairo": 2, "Dune": 2})
    chosen = select_distractors(docs, {"Aaron", "Cairo"})
    assert {d.title for d in chosen} == {"Bach", "Dune"}
    two = select_distractors(docs, {"Aaron"}, count=2, seed=3)
    assert len(two) == 2 and "Aaron" not in {d.title for d in two}
    assert two == select_distractors(docs, {"Aaron"}, count=2, seed=3)
    assert select_distractors(docs, {"Aaron"}, count=0) == []
    with pytest.raises(SelectionError, match=">= 0"):
        select_distractors(docs, {"Aaron"}, count=-1)


def test_graded_qrels_follow_comlq_levels():
    assert graded_qrels("q1", ["d1"]) == [Qrel("q1", "d1", 2)]
    assert graded_qrels("q2", ["d1", "d2", "d3"]) == [Qrel("q2", "d1", 1), Qrel("q2", "d2", 1),
                                                      Qrel("q2", "d3", 1)]


def test_negation_labels_round_trip_for_lsnc(tmp_path):
    negated = [{"subject": "?z", "relation": "nationality", "object": "America"}]
    labels = negation_labels("q1", ["g1", "g2"], ["hyp1"], negated)
    assert [(x.doc_id, x.violates, x.source) for x in labels] == [
        ("g1", 0, "gold"), ("g2", 0, "gold"), ("hyp1", 1, "hypothetical")]
    assert write_negation_labels(tmp_path, labels) == 3
    path = labels_path(tmp_path)
    assert path == tmp_path / "logical" / "negation_labels.jsonl"
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first == {"query_id": "q1", "doc_id": "g1", "violates": 0, "source": "gold",
                     "negated": negated}
    assert read_violations(path) == {"q1": {"g1": 0, "g2": 0, "hyp1": 1}}


@pytest.mark.parametrize(("row", "message"), [
    ({"query_id": "q", "doc_id": "d"}, "field 'violates': missing field"),
    ({"query_id": "q", "doc_id": "d", "violates": 2}, "violates must be 0 or 1, got 2"),
    ({"query_id": "q", "doc_id": "d", "violates": True}, "violates must be 0 or 1, got True"),
])
def test_bad_label_rows_name_file_line_and_field(tmp_path, row, message):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"query_id": "q0", "doc_id": "d", "violates": 0}\n' + json.dumps(row) + "\n",
                    encoding="utf-8")
    with pytest.raises(FormatError) as error:
        read_violations(path)
    assert f"{path}:2" in str(error.value) and message in str(error.value)


def test_split_passages_keeps_titles_so_multi_passage_groups_exist():
    doc = Doc("odile", "Odile Varenne was a composer. She was born in Elmsford. Her father was a "
              "pilot. In 1904 she founded the Carrow Symphony Orchestra. It was the first.",
              "Odile Varenne", {"source": "d17.txt"})
    parts = split_passages([doc], 2)
    assert [p.doc_id for p in parts] == ["odile-p0", "odile-p1", "odile-p2"]
    assert parts[0].text == "Odile Varenne was a composer. She was born in Elmsford."
    assert parts[2].text == "It was the first."
    assert {p.title for p in parts} == {"Odile Varenne"}
    assert parts[1].metadata == {"source": "d17.txt", "parent": "odile"}
    assert list(group_docs(parts)) == ["Odile Varenne"]
    assert split_passages([doc], 0) == [doc]
    with pytest.raises(SelectionError, match=">= 0"):
        split_passages([doc], -1)


def test_a_capable_models_answer_is_grounded_by_form_not_verbatim():
    passage = "Debian is free software: you must build it from source yourself."
    worded = output([], answer="source that you must build yourself",
                    query="What does Debian leave to you?")
    assert answer_problems(worded, [passage]) == [
        "answer 'source that you must build yourself' does not appear in the passages"]
    assert answer_problems(worded, [passage], own_wording=True) == []
    invented = output([], answer="source you must compile on Gentoo",
                      query="What does Debian leave to you?")
    (problem,) = answer_problems(invented, [passage], own_wording=True)
    assert "'Gentoo'" in problem and "'compile'" in problem


@pytest.mark.parametrize("own_wording", [False, True])
def test_vacuous_and_given_away_answers_are_rejected_for_every_model(own_wording):
    vague = output([], answer="them")
    assert answer_problems(vague, [P1], own_wording) == [
        "the answer 'them' says nothing: name the thing, number or value the passages give"]
    leaked = output([], answer="Quiet Harbor", query="Who directed Quiet Harbor?")
    assert answer_problems(leaked, [P1], own_wording) == [
        "the query gives away its answer (Quiet Harbor)"]
    assert answer_problems(output([], answer="Tom Hanks"), [P1, P2], own_wording)


def test_no_passage_or_evidence_quote_ends_inside_an_abbreviation():
    """Passages and evidence quotes cut at the corpus's sentence ends: "St." and "Dr." end no
    sentence, so no passage stops at "moved from St." (a relay model was shown one)."""
    from irforge.generators.logical.query_schema import evidence_pieces

    doc = Doc("h", "The library opened in March 2019. In 2022 the library moved from St. "
              "Brigid's Hall to the fire station. Dr. Okafor chairs it.\n\nIt lends 300 tools.",
              "History")
    parts = split_passages([doc], 2)
    assert [p.text for p in parts] == [
        "The library opened in March 2019. In 2022 the library moved from St. Brigid's Hall "
        "to the fire station.", "Dr. Okafor chairs it.\n\nIt lends 300 tools."]
    assert "In 2022 the library moved from St. Brigid's Hall to the fire station." in \
        evidence_pieces(doc.text)
    assert not any(piece.endswith(("St.", "Dr.")) for piece in evidence_pieces(doc.text))
