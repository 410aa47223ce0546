"""The methods' sources through the selector: whole documents for MultiConIR, the error
naming the closest documents, and the manifest's chosen/rejected table."""

from __future__ import annotations

import pytest

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc
from irforge.generators.sources import (
    chosen_documents,
    chosen_passages,
    selection_table,
)

LENTILS = [
    "The Lentil Curry from Ghent serves 4 people and takes 40 minutes to cook.",
    "It uses 200 g of green lentils from Puy and 50 g of vermicelli.",
    "Marta Lopez first printed the recipe in the Ghent Herald in 1998.",
    "A teaspoon of sumac from Aleppo goes in during the last 5 minutes.",
    "The curry keeps for 3 days in the fridge of the Ghent kitchen.",
    "Serve it with 2 flatbreads from the Atlas bakery in Brussels.",
]
BREAD = [
    "The Rye Loaf of Tartu needs 500 g of flour and 12 hours of proofing.",
    "Anna Kask baked it for the Tartu market from 1975 to 1990.",
    "The oven of the Tartu bakery runs at 230 degrees for 50 minutes.",
    "Each loaf of the Tartu bakery weighs 900 g and sells for 3 euros.",
]


def _document(doc_id: str, title: str, sentences: list[str], per_passage: int = 2) -> list[Doc]:
    """A document cut into passages of ``per_passage`` sentences (``<doc>_<k>`` ids)."""
    return [Doc(f"{doc_id}_{k}", " ".join(sentences[start:start + per_passage]), title,
                {"doc_id": doc_id, "section": f"{title} > Part {k}"})
            for k, start in enumerate(range(0, len(sentences), per_passage))]


def _corpus() -> list[Doc]:
    contents = [Doc("toc_0", "Lentil Curry. Rye Loaf. Index of recipes. About us.", "Contents",
                    {"doc_id": "toc"})]
    return [*contents, *_document("bread", "Rye Loaf", BREAD),
            *_document("lentils", "Lentil Curry", LENTILS)]


def test_a_multicon_source_is_a_whole_document_in_passage_order() -> None:
    docs, selection = chosen_documents(_corpus(), n=3, limit=1, seed=0)
    assert [doc.doc_id for doc in docs] == ["lentils"]  # the most attributes first
    doc = docs[0]
    assert doc.metadata["passage_ids"] == ["lentils_0", "lentils_1", "lentils_2"]
    assert doc.text.split("\n\n")[0].startswith("The Lentil Curry from Ghent")
    assert doc.title == "Lentil Curry"
    assert doc.metadata["source"]["reason"].endswith("over 3 passages")
    assert doc.metadata["source"]["score"] >= 6
    table = selection_table(selection)
    assert table["chosen"] == 1 and table["rejected"] == 2
    assert table["rejected_by_reason"] == {"below the cut": 1, "no passage worth reading": 1}
    assert {c.source_id: c.reason for c in selection.rejected}["toc"].startswith(
        "no passage worth reading: contents_or_licence_page")


def test_limit_counts_documents_not_passages() -> None:
    docs, _ = chosen_documents(_corpus(), n=3, limit=5, seed=0)
    assert sorted(doc.doc_id for doc in docs) == ["bread", "lentils"]


def test_no_document_with_n_conditions_names_the_closest_and_the_n_that_works() -> None:
    with pytest.raises(IrforgeError) as raised:
        chosen_documents(_corpus(), n=10, limit=3, seed=0)
    message = str(raised.value)
    assert "no document of the corpus has 10 conditions" in message
    assert "closest: lentils (6), bread (4)" in message
    assert "n: 6 (or lower) would work" in message


def test_passages_are_chosen_spread_over_documents_with_their_reason() -> None:
    chosen, selection = chosen_passages(_corpus(), "informative", seed=3)
    assert "toc_0" not in {doc.doc_id for doc in chosen}
    assert {doc.metadata["doc_id"] for doc in chosen[:2]} == {"bread", "lentils"}
    assert all(c.reason.startswith("informative score") for c in selection.chosen)
    again, _ = chosen_passages(_corpus(), "informative", seed=3)
    assert [doc.doc_id for doc in again] == [doc.doc_id for doc in chosen]
