"""Near-miss negatives: on-topic passages that do not answer, the source's own document first;
with no known answer, a passage missing the words that make the source answer the query."""

from __future__ import annotations

from irforge.core.records import Doc
from irforge.generators.controls import ControlSource
from irforge.generators.near_miss import NEIGHBOUR, SAME_DOCUMENT, lacks_answer, near_miss

MANUAL = [
    Doc("manual.pdf_0", "Chain care: oil a bicycle chain every 300 kilometres."),
    Doc("manual.pdf_1", "Chain wear: replace a bicycle chain when it stretches by 0.5%."),
    Doc("manual.pdf_2", "Saddle height: the leg is almost straight at the lowest pedal."),
    Doc("shop.txt_0", "Our shop sells bicycle chain oil in three sizes."),
    Doc("birds.txt_0", "Swifts sleep on the wing."),
]


def _rank(query: str, docs) -> list[str]:
    return ["manual.pdf_0", "shop.txt_0", "manual.pdf_1", "manual.pdf_2", "birds.txt_0"]


def test_the_same_document_comes_first_and_must_be_on_topic() -> None:
    source = ControlSource("q", "How often should a bicycle chain be oiled?", "manual.pdf_0")
    found = near_miss(source, MANUAL, _rank)
    # manual.pdf_1 is on the chain but says nothing of oiling every 300 km; manual.pdf_2
    # (saddles) is off topic; shop.txt_0 ranks higher but is another document
    assert found is not None and (found[0].doc_id, found[1]) == ("manual.pdf_1", SAME_DOCUMENT)


def test_a_bm25_neighbour_when_the_own_document_has_none() -> None:
    source = ControlSource("q", "When is a chain worn out?", "manual.pdf_1",
                           answer="stretched by 0.5%")
    pool = [MANUAL[1], MANUAL[3], MANUAL[4]]
    found = near_miss(source, pool, _rank)
    assert found is not None and (found[0].doc_id, found[1]) == ("shop.txt_0", NEIGHBOUR)


def test_a_passage_that_answers_is_never_a_near_miss() -> None:
    source = ControlSource("q", "How often should a bicycle chain be oiled?", "manual.pdf_0",
                           answer="every 300 kilometres")
    twin = Doc("manual.pdf_3", "Oil the bicycle chain every 300 kilometres, more in rain.")
    assert not lacks_answer(source, MANUAL[0].text, twin.text)
    found = near_miss(source, [MANUAL[0], twin], _rank)
    assert found is None
    # without an answer, the twin still holds every word the query and its source share
    open_source = ControlSource("q", source.query, "manual.pdf_0")
    assert not lacks_answer(open_source, MANUAL[0].text, twin.text)


def test_off_topic_passages_are_other_document_negatives_not_near_misses() -> None:
    source = ControlSource("q", "How often should a bicycle chain be oiled?", "manual.pdf_0")
    assert not lacks_answer(source, MANUAL[0].text, "Swifts sleep on the wing.")
