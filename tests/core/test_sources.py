"""One list of the metadata keys naming a query's source passage, read the same everywhere."""

from __future__ import annotations

from irforge.check.base import source_of
from irforge.core.records import Doc, Query
from irforge.core.sources import SOURCE_KEYS, source_doc_ids
from irforge.generators.controls import sources_from_queries


def test_every_key_a_generator_writes_names_the_source() -> None:
    for key in SOURCE_KEYS:
        assert source_doc_ids({key: "d1"}) == ["d1"]
    # logical writes its first passage and the list: each id once, in key order
    assert source_doc_ids({"source_doc": "a", "source_doc_ids": ["a", "b"]}) == ["a", "b"]
    assert source_doc_ids({"doc_ids": ("x", "y"), "seed_doc_id": "s"}) == ["s", "x", "y"]
    assert source_doc_ids({"answer": "d1", "source_doc": ""}) == []
    assert source_doc_ids(None) == []


def test_check_controls_and_audits_find_the_same_source() -> None:
    from irforge.audits.data import query_sources

    docs = {"p": Doc("p", "A passage."), "g": Doc("g", "Made.", metadata={"generated": True})}
    for meta in ({"seed_doc_id": "p"}, {"source_doc_ids": ["p"]}, {"gold_doc_id": "p"},
                 {"positive_doc_id": "p"}, {"doc_id": "p"}):
        query = Query("q", "a query", meta)
        assert source_of(query, docs) is docs["p"], meta
        assert [s.doc_id for s in sources_from_queries([query], docs)] == ["p"], meta
        assert query_sources([query], {}) == {"q": ["p"]}, meta
    # a control is never made from a generated passage, even one named first
    query = Query("q", "a query", {"gold_doc_id": "g", "seed_doc_id": "p"})
    assert [s.doc_id for s in sources_from_queries([query], docs)] == ["p"]
