from __future__ import annotations

from irforge.generators.multicon.sentences import locate, normalize, split_sentences
from tests.generators.multicon.docs import NOVEL, PATIENT


def test_split_sentences_keeps_offsets_into_the_original_text():
    spans = split_sentences(PATIENT)
    assert len(spans) == 5
    for span in spans:
        assert PATIENT[span.start:span.end] == span.text
    assert spans[1].text == "He is allergic to penicillin and to shellfish."
    assert spans[-1].text.endswith("within a month.")


def test_split_sentences_keeps_closing_quotes_with_their_sentence():
    spans = split_sentences('She said "go home." Then she left. Done')
    assert [s.text for s in spans] == ['She said "go home."', "Then she left.", "Done"]


def test_exact_match_ignores_whitespace_differences_and_returns_document_text():
    found = locate("He is allergic to penicillin and to shellfish.", PATIENT)
    assert found is not None and found.match == "exact" and found.score == 100.0
    multi_line = locate("with crushing chest pain radiating to the left arm. He is allergic",
                        PATIENT)
    assert multi_line is not None
    assert multi_line.span.text == PATIENT[multi_line.span.start:multi_line.span.end]
    assert "\n" in multi_line.span.text


def test_exact_match_snaps_to_dropped_closing_punctuation():
    found = locate("The book won the Harbour Prize for debut fiction in 1988", NOVEL)
    assert found is not None and found.span.text.endswith("1988.")


def test_fuzzy_match_is_snapped_to_the_documents_own_sentence():
    paraphrase = ("The story follows a bee keeper called Mara on a windswept island off the "
                  "north coast.")
    found = locate(paraphrase, NOVEL, threshold=85)
    assert found is not None and found.match == "fuzzy"
    assert 85 <= found.score < 100
    assert found.span.text == (
        "The story follows a beekeeper named Mara on a windswept island off the northern coast.")
    assert NOVEL[found.span.start:found.span.end] == found.span.text


def test_fuzzy_match_can_cover_two_adjacent_sentences():
    merged = ("Mara's brother returns after twenty years at sea with a sealed letter. "
              "The island orchard has been dying since the lighthouse went dark.")
    found = locate(merged, NOVEL, threshold=90)
    assert found is not None
    assert found.span.text.startswith("Mara's brother") and found.span.text.endswith("dark.")


def test_sentence_not_in_document_is_not_located():
    assert locate("The novel is set on a space station orbiting Mars.", NOVEL) is None
    assert locate("The story follows a beekeeper", NOVEL, threshold=95) is not None  # substring
    assert locate("", NOVEL) is None


def test_normalize_ignores_case_spacing_and_outer_punctuation():
    assert normalize("  The Book,  won. ") == normalize("the book, won")


def test_split_sentences_does_not_cut_at_abbreviations_or_lower_case_continuations() -> None:
    text = ("The quartet was printed by Messrs. Novello in 1902. The second console, a.k.a. tty2, "
            "opens with a key. Her Nocturne in E, op. 9, closes the set. "
            "He said \"wait.\" and left."
            "\n\nInstalling the printer\nPlug the cable in first.")
    got = [span.text for span in split_sentences(text)]
    assert got == ["The quartet was printed by Messrs. Novello in 1902.",
                   "The second console, a.k.a. tty2, opens with a key.",
                   "Her Nocturne in E, op. 9, closes the set.",
                   "He said \"wait.\" and left.",
                   "Installing the printer\nPlug the cable in first."]
    assert all(text[span.start:span.end] == span.text for span in split_sentences(text))
