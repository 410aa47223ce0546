"""The explorer's pure parts: the word diff, grades from continuous labels, passage roles."""

from __future__ import annotations

import pytest

from irforge.viewer.passages import agreement, grade, roles, word_diff


def test_word_diff_marks_only_the_changed_words_and_keeps_the_text() -> None:
    positive = "The gauge at Quay Street reaches 2.1 metres at night."
    negative = "The gauge at Quay Street reaches 3.4 metres at  noon."
    segments = word_diff(positive, negative)
    assert "".join(text for text, _ in segments) == negative
    assert [text.strip() for text, changed in segments if changed] == ["3.4", "noon."]
    assert word_diff(positive, positive) == [[positive, False]]


@pytest.mark.parametrize(("label", "expected"), [(2.234620304196038, 2), (2.5, 3), (1.5, 2),
                                                 (0.49, 0), (3.0, 3)])
def test_continuous_labels_round_half_up_to_grades(label: float, expected: int) -> None:
    assert grade(label) == expected


def test_agreement_is_on_the_rounded_grade() -> None:
    assert agreement({"llm:ensemble": 2.2346, "human:ann": 2}) is True
    assert agreement({"llm:ensemble": 1.6, "human:ann": 0}) is False
    assert agreement({"llm:ensemble": 1.6}) is None


def test_roles_follow_the_best_grade_and_the_method() -> None:
    # graded relevance (intents, logical): a grade-1 passage is related, not a hard negative
    assert roles({"a": 2, "b": 1, "c": 0}, {"d"}) == {
        "a": "positive", "b": "graded", "c": "graded", "d": "judged"}
    # a method that made hard negatives on purpose (MultiConIR, InfoSearch)
    assert roles({"a": 2, "b": 1, "c": 0}, {"d"}, hard_negatives=True) == {
        "a": "positive", "b": "hard negative", "c": "hard negative", "d": "judged"}
    assert roles({"c": 0}, set(), hard_negatives=True) == {"c": "hard negative"}


def test_ids_sort_in_natural_order() -> None:
    from irforge.viewer.data import natural_key

    ids = ["q10", "q2", "QA_C7_0010", "QA_C7_0002", "q1b", "q1"]
    assert sorted(ids, key=natural_key) == ["QA_C7_0002", "QA_C7_0010", "q1", "q1b", "q2",
                                            "q10"]
