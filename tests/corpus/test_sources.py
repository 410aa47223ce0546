"""Issue 33: one source selector for every method. Sources come from the whole corpus, spread
over documents and sections, ranked by what the method needs; contents, licence, boilerplate
and stub-like passages are never chosen; every candidate carries its reason and score."""

from __future__ import annotations

import pytest

from irforge.core.records import Doc
from irforge.corpus.sources import (
    SCORERS,
    corpus_sample,
    domain_sample,
    features,
    group_documents,
    select_documents,
    select_passages,
)

BRIDGE = ("The Arden Bridge was opened in 1902 by Mayor Clara Voss. It spans 240 m over the "
          "River Lune. The bridge carries 12,000 cars a day between Lancaster and Morecambe.")
SOUP = ("Lentil soup takes 200 g green lentils and 1/2 cup of rice. Simmer the lentils for 25 "
        "minutes in 1 litre of stock. Season with sumac from Aleppo before serving.")
GPL = ("This program is free software; you can redistribute it under the terms of the GNU "
       "General Public License. It comes with no warranty. See the license for details about "
       "liability and copyright.")
THIN = ("Our team thanks everyone. We love our work and we hope you enjoy the site. It was "
        "fun to build and we are proud of it and of you.")


def _doc(pid: str, text: str, title: str, section: str = "") -> Doc:
    meta = {"doc_id": pid.rsplit("_", 1)[0], **({"section": section} if section else {})}
    return Doc(pid, text, title, meta)


CORPUS = [
    _doc("a_0", BRIDGE, "Arden Bridge", "History"),
    _doc("a_1", BRIDGE.replace("1902", "1903"), "Arden Bridge", "History"),
    _doc("a_2", BRIDGE.replace("Clara", "Ines"), "Arden Bridge", "Traffic"),
    _doc("a_3", "Introduction History Design Traffic Maintenance Sources", "Arden Bridge",
         "Contents"),
    _doc("b_0", GPL, "Appendix", "The GNU General Public License"),
    _doc("c_0", SOUP, "Lentil soup"),
    _doc("d_0", "Next page. Back.", "Stub"),
    _doc("e_0", GPL.replace("This program", "The software"), "Legal notes"),
    _doc("f_0", THIN, "Thanks"),
    _doc("g_0", BRIDGE.replace("Arden Bridge", "Permit Office"), "Driver's license renewal"),
]


def test_choice_is_spread_over_documents_and_sections_not_the_first_n() -> None:
    chosen = select_passages(CORPUS, 3, "logical", seed=0).chosen
    assert [c.doc_id for c in chosen].count("a") <= 2
    assert "c" in {c.doc_id for c in chosen}
    bridge = [c for c in chosen if c.doc_id == "a"]
    assert len({c.section for c in bridge}) == len(bridge)  # a new section each time
    assert [c.rank for c in chosen] == [1, 2, 3]
    assert all(c.reason.startswith("logical score") and c.score > 0 for c in chosen)


def test_contents_licence_boilerplate_and_stubs_are_never_chosen() -> None:
    selection = select_passages(CORPUS, 100, "informative", seed=0)
    chosen = {c.source_id for c in selection.chosen}
    assert not chosen & {"a_3", "b_0", "d_0", "e_0"}
    reasons = {c.source_id: c.reason for c in selection.rejected}
    assert reasons["a_3"].startswith("contents_or_licence_page")
    assert reasons["b_0"].startswith("contents_or_licence_page")
    assert reasons["d_0"].startswith("too_short")
    assert reasons["e_0"].startswith("boilerplate")
    assert len(selection.chosen) + len(selection.rejected) == len(CORPUS)
    assert "g_0" in chosen  # a page about licences is not a licence


def test_scorers_rank_by_what_the_method_needs() -> None:
    rich, thin = features(BRIDGE), features(THIN)
    for name, scorer in SCORERS.items():
        assert scorer(rich) > scorer(thin), name
    with pytest.raises(ValueError, match="unknown source need"):
        select_passages(CORPUS, 1, "nonsense")


def test_the_same_seed_gives_the_same_choice_and_ties_follow_the_seed() -> None:
    twins = [_doc(f"t{i}_0", BRIDGE, f"Bridge {i}") for i in range(8)]
    first = [c.source_id for c in select_passages(twins, 3, seed=1).chosen]
    assert first == [c.source_id for c in select_passages(twins, 3, seed=1).chosen]
    others = {tuple(c.source_id for c in select_passages(twins, 3, seed=s).chosen)
              for s in range(2, 8)}
    assert len(others) > 1


def test_documents_are_sources_for_multicon_with_their_passages_in_order() -> None:
    groups = dict(group_documents(CORPUS))
    assert [d.doc_id for d in groups["a"]] == ["a_0", "a_1", "a_2", "a_3"]
    selection = select_documents(CORPUS, 5, min_attributes=4)
    assert [c.source_id for c in selection.chosen] == ["a"]
    assert selection.chosen[0].passage_ids == ("a_0", "a_1", "a_2")  # contents left out
    soup = next(c for c in selection.rejected if c.source_id == "c")
    assert soup.reason.startswith("too few attributes: 3 distinct") and soup.score > 0
    assert next(c for c in selection.rejected if c.source_id == "b").reason.startswith(
        "no passage worth reading")


def test_domain_sample_takes_documents_from_across_the_corpus() -> None:
    sample = domain_sample(CORPUS, size=2)
    assert [doc.metadata["doc_id"] for doc in sample] == ["a", "c"]


def test_corpus_sample_is_in_proportion_to_where_the_text_is() -> None:
    # a book of 12 passages (one document) and 4 short pages: the book shows as its share
    book = [_doc(f"book_{i}", BRIDGE.replace("1902", str(1900 + i)), "The bridges",
                 f"Chapter {i}") for i in range(12)]
    pages = [_doc(f"page{i}_0", SOUP.replace("25", str(20 + i)), f"Soup {i}") for i in range(4)]
    sample = corpus_sample([*book, *pages, _doc("gpl_0", GPL, "Licence")], size=8, seed=0)
    assert len(sample) == 8 and len({doc.doc_id for doc in sample}) == 8
    assert sum(doc.doc_id.startswith("book_") for doc in sample) == 6  # 12 of 16 passages
    assert "gpl_0" not in [doc.doc_id for doc in sample]  # the selector's rejections hold
    assert corpus_sample([*book, *pages], size=8, seed=0) == sample  # seeded, deterministic
    assert corpus_sample([], size=8) == []


BOOK_INDEX = ("Bassoon, 74, 82, 99, 101 et seq. Bastardella, La, 239 Bayreuth Festival orchestra, "
              "81, 82 Beethoven, 27, 28, 29, 30, 31, 44, 46, 47; his chamber music, 47; his "
              "sonatas, 182; his overtures, 147; his technique as a player, 186; Fifth symphony, "
              "28, 29, 30, 31, 92, 103. Viola, 74, 77, 82, 92, 93 Violin concertos, 145.")
CENSUS = ("The town had 4,210 people in 1901, 5,030 in 1911 and 6,480 in 1921, when the mill "
          "opened. Most new families came from the valley to work its looms. By 1931 the mill "
          "employed 900 people, a third of the town's workers, and paid the best wages nearby.")


def test_a_book_index_is_rejected_by_its_structure_whatever_its_heading() -> None:
    """An index under a chapter's heading (or none) is still an index; prose that lists
    years and counts after commas is not."""
    docs = [_doc("k_0", BOOK_INDEX, "How to Listen to Music", "PLATE XII"),
            _doc("k_1", BOOK_INDEX, "How to Listen to Music"),
            _doc("m_0", CENSUS, "Millbrook", "History")]
    selection = select_passages(docs, 10, "informative", seed=0)
    reasons = {c.source_id: c.reason for c in selection.rejected}
    assert reasons["k_0"].startswith("index_entries: an index")
    assert reasons["k_1"].startswith("index_entries: an index")
    assert [c.source_id for c in selection.chosen] == ["m_0"]
