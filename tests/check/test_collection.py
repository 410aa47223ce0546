"""A name grounded by its collection: the topic most documents of the passage's source write
('Quillmark' of a Quillmark handbook page that never says it) is accepted; a name of another
source, a rare name of one other document, and a supported claim's swapped-in name are not."""

from __future__ import annotations

from typing import Any

import pytest

from irforge.check.collection import MIN_SOURCE_DOCS, collection_topics, source_of
from irforge.check.suite import Case, Context, case_fields, validate
from irforge.core.records import Doc, Query


def page(source: str, number: int, text: str, title: str) -> Doc:
    """Passage 0 of document ``number`` of folder ``source``."""
    return Doc(f"{source}_{number}_0", text, title,
               {"doc_id": f"{source}_{number}", "file": f"{source}/page{number}.html"})


HANDBOOK = [
    page("handbook", 1, "Quillmark stores every note in a local folder you choose.", "Storage"),
    page("handbook", 2, "To share a notebook, Quillmark sends an invitation by email.",
         "Sharing"),
    page("handbook", 3, "Quillmark keeps 30 versions of each note for a year.", "History"),
    page("handbook", 4, "Press the pin icon to keep a note at the top of the list. Pinned notes "
                        "stay there until you unpin them.", "Pinning"),
    page("handbook", 5, "Tags group notes by subject. A note may carry up to 12 tags, and the "
                        "tag list shows how many notes each tag holds.", "Tags"),
    page("handbook", 6, "Exported notes open in Zorander, a viewer for plain text files.",
         "Export"),
]
RECIPES = [
    page("recipes", n, f"Saffronia's kitchen recipe {n}: simmer the stock for {n * 5} minutes.",
         f"Recipe {n}") for n in range(1, 7)
]
PINNING = HANDBOOK[3]
DOCS = {d.doc_id: d for d in (*HANDBOOK, *RECIPES)}


def grounding(text: str, doc: Doc = PINNING, **meta: Any) -> str:
    """The grounding.query finding of ``text`` against ``doc`` ('' when grounded)."""
    query = Query("q", text, {"intent": "QA", **meta})
    found = validate(Case(query, case_fields(query), (doc,)),
                     Context(docs=DOCS, language="en"), only=["grounding.query"])
    return found[0].detail if found else ""


def test_the_collections_topic_names_are_what_most_of_a_sources_documents_write() -> None:
    topics = collection_topics(DOCS.values())
    assert topics["handbook"] == frozenset({"Quillmark"})  # 3 of 6 documents
    assert topics["recipes"] == frozenset({"Saffronia"})  # 6 of 6 (possessive dropped)
    assert source_of(PINNING) == "handbook"


@pytest.mark.parametrize("text", [
    "How do I pin a note to the top of the list in Quillmark?",
    "Quillmark's pinned notes: do they stay at the top?",
])
def test_a_question_may_name_its_collections_topic(text: str) -> None:
    assert grounding(text, query_form="question") == ""


@pytest.mark.parametrize(("text", "missing"), [
    # the topic of another source of the corpus
    ("How do I pin a note to the top of the list in Saffronia?", "'Saffronia'"),
    # a name one other document of the same source writes
    ("How do I pin a note to the top of the list in Zorander?", "'Zorander'"),
    # a name nowhere
    ("How do I pin a note to the top of the list in Evernote?", "'Evernote'"),
])
def test_names_that_are_not_the_sources_topic_stay_ungrounded(text: str, missing: str) -> None:
    assert missing in grounding(text, query_form="question")


def test_the_topic_grounds_names_only() -> None:
    # 'Quillmark' is the topic, but '30 versions' is another page's number
    assert "number(s) '30'" in grounding("Does Quillmark keep 30 versions of a pinned note?",
                                        query_form="question")


def test_a_supported_claims_swapped_in_name_stays_ungrounded() -> None:
    claim = "Pinned notes stay at the top of the list in Quillmark until you unpin them."
    assert "'Quillmark'" in grounding(claim, query_form="claim-supported", stance="supported")
    # a refuted claim's changed fact aside: it may name what the passage does not
    assert grounding(claim, query_form="claim-refuted", stance="refuted") == ""


def test_a_few_documents_make_no_topic_and_small_folders_are_one_site() -> None:
    few = HANDBOOK[:MIN_SOURCE_DOCS - 1]
    assert collection_topics(few) == {}
    # a site's folders of two or three pages each are read as one source, the root
    site = [Doc(d.doc_id, d.text, d.title, {**d.metadata, "file": f"part{i % 3}/p{i}.md"})
            for i, d in enumerate(HANDBOOK)]
    assert collection_topics(site) == {"": frozenset({"Quillmark"})}


def test_rewrites_and_generated_passages_are_no_documents_of_the_collection() -> None:
    copies = [Doc(f"copy{i}", "Zorander opens exported notes.", "Export",
                  {"rewritten_from": "handbook_6_0"}) for i in range(10)]
    topics = collection_topics([*DOCS.values(), *copies])
    assert "Zorander" not in topics["handbook"] and "" not in topics


def logical_findings(text: str, answer: str) -> list[str]:
    """grounding.answer's findings of a logical query on the pinning page."""
    quote = "Pinned notes stay there until you unpin them."
    query = Query("q", text, {"answer": answer, "evidence": [
        {"passage": 1, "doc_id": PINNING.doc_id, "text": quote}]})
    case = Case(query, {"text": text}, positives=(PINNING,), source=PINNING)
    return [f.detail for f in validate(case, Context(docs=DOCS, language="en"),
                                       only=["grounding.answer"])]


def test_a_logical_querys_entity_may_be_the_topic_and_its_answers_names_may_not() -> None:
    assert logical_findings("Which Quillmark notes stay at the top of the list?",
                            "pinned notes") == []
    found = logical_findings("Which notes stay at the top of the list in Saffronia?",
                             "pinned notes")
    assert found and "'Saffronia'" in found[0]
    found = logical_findings("Which notes stay at the top of the list?", "pinned Quillmark notes")
    assert found and "Quillmark" in found[0]
