"""Control items: per source a positive, a negative from another document and category and a
near-miss (on topic, lacking the answer) where one exists; opaque ids, a shuffled order."""

from __future__ import annotations

from irforge.core.records import Doc, Query
from irforge.generators.controls import (
    NEAR_MISS,
    OTHER_DOCUMENT,
    POSITIVE,
    ControlSource,
    document_of,
    has_answer,
    make_controls,
    mix,
    relevant_from,
    sources_from_queries,
)

POOL = [
    Doc("bikes.txt_0", "A chain needs oil every 300 kilometres in wet weather."),
    Doc("bikes.txt_1", "Tyre pressure for a road bike is usually 6 to 8 bar."),
    Doc("birds.txt_0", "Swifts sleep on the wing and land only to nest."),
    Doc("birds.txt_1", "Robins defend a winter territory and sing all year."),
    Doc("tyres.txt_0", "Tyre pressure charts list values for mountain bikes, not road bikes."),
]


def test_sources_need_a_real_passage_named_in_metadata() -> None:
    docs = {d.doc_id: d for d in [*POOL, Doc("gen_q3", "generated", metadata={
        "generated": True})]}
    queries = [Query("q1", "How often should a chain be oiled?", {"seed_doc_id": "bikes.txt_0",
                                                                  "category": "bikes"}),
               Query("q2", "Do swifts sleep flying?", {"source_doc": "birds.txt_0",
                                                       "answer": "on the wing"}),
               Query("q3", "A generated positive only", {"positive_doc_id": "gen_q3"}),
               Query("q4", "No source at all", {}),
               Query("q5", "Unknown doc", {"seed_doc_id": "nowhere"})]
    sources = sources_from_queries(queries, docs)
    assert [(s.query_id, s.doc_id, s.category, s.answer) for s in sources] == [
        ("q1", "bikes.txt_0", "bikes", None), ("q2", "birds.txt_0", None, "on the wing")]


def test_one_positive_one_negative_per_source_with_opaque_ids() -> None:
    sources = [ControlSource("q1", "How often should a chain be oiled?", "bikes.txt_0",
                             "QA", "bikes"),
               ControlSource("q2", "Where do swifts sleep?", "birds.txt_0", "QA", "birds")]
    controls = make_controls(sources, POOL, seed=3)
    assert len(controls) == 4
    assert sorted(c.kind for c in controls) == [OTHER_DOCUMENT, OTHER_DOCUMENT, POSITIVE,
                                                POSITIVE]
    by_query = {(c.query_id, c.kind): c for c in controls}
    # another document and another category: a bird passage for the bike query
    assert by_query[("q1", OTHER_DOCUMENT)].doc_id.startswith("birds")
    assert by_query[("q2", OTHER_DOCUMENT)].doc_id.startswith("bikes")
    assert by_query[("q1", POSITIVE)].passage == POOL[0].text
    for control in controls:
        assert control.control_id.startswith("i") and len(control.control_id) == 13
        assert control.kind not in control.control_id and control.query_id not in \
            control.control_id
        assert control.expected == int(control.kind == POSITIVE)
    assert make_controls(sources, POOL, seed=3) == controls  # seeded


def _kinds(controls) -> dict[str, str]:
    return {c.kind: c.doc_id for c in controls}


def test_near_miss_is_the_best_ranked_on_topic_passage_without_the_answer() -> None:
    source = ControlSource("q1", "What tyre pressure for a road bike?", "bikes.txt_1",
                           answer="6 to 8 bar")

    def ranker(query: str, docs):  # a fixed BM25-like order
        return ["bikes.txt_1", "bikes.txt_0", "tyres.txt_0", "birds.txt_0"]

    controls = make_controls([source], POOL, ranker=ranker)
    assert [c.kind for c in controls] == [POSITIVE, OTHER_DOCUMENT, NEAR_MISS]
    # bikes.txt_0 (same document) says nothing of tyres, bikes or roads: off topic, no
    # near-miss; tyres.txt_0 is next and lacks "6 to 8"
    assert _kinds(controls)[NEAR_MISS] == "tyres.txt_0"
    holding = [*POOL, Doc("pump.txt_0", "Road tyres: pump them to 6 to 8 bar.")]
    controls = make_controls([source], holding, ranker=lambda q, d: ["pump.txt_0",
                                                                    "tyres.txt_0"])
    assert _kinds(controls)[NEAR_MISS] == "tyres.txt_0"  # the passage with the answer is no
    # negative


def test_near_miss_with_the_real_bm25_ranker() -> None:
    source = ControlSource("q1", "What tyre pressure for a road bike?", "bikes.txt_1",
                           answer="6 to 8 bar")
    assert _kinds(make_controls([source], POOL))[NEAR_MISS] == "tyres.txt_0"


def test_has_answer_reads_parts_and_numbers() -> None:
    assert has_answer("Pump road tyres to 6 to 8 bar.", "6 to 8 bar")
    assert has_answer("Buses leave from School Street.", "supported: buses; School Street")
    assert not has_answer("Tyre charts for mountain bikes.", "6 to 8 bar")


def test_document_of_passages() -> None:
    assert document_of(Doc("a.pdf_3", "x")) == "a.pdf"
    assert document_of(Doc("p1", "x", metadata={"doc_id": "report.pdf"})) == "report.pdf"
    assert document_of(Doc("plain", "x")) == "plain"


def test_mix_shuffles_controls_among_real_items() -> None:
    order = mix(10, 10, seed=1)
    assert sorted(order) == sorted([(False, i) for i in range(10)] +
                                   [(True, i) for i in range(10)])
    assert [c for c, _ in order] != [False] * 10 + [True] * 10


def test_relevant_grade_is_half_the_scale_rounded_up() -> None:
    assert [relevant_from(top) for top in (1, 2, 3, 5)] == [1, 1, 2, 3]
