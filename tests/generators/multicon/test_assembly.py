from __future__ import annotations

import pytest

from irforge.generators.multicon.assembly import (
    DEFAULT_FILLER,
    Edit,
    apply_edits,
    build_variants,
    insertion_points,
    plan_padding,
    satisfied_counts,
)
from irforge.generators.multicon.sentences import word_count
from irforge.generators.multicon.steps import validate_conditions
from tests.generators.multicon.docs import NOVEL, NOVEL_CONDITIONS, NOVEL_NEGATIVES


@pytest.fixture
def spans():
    return [c.span for c in validate_conditions(NOVEL_CONDITIONS, NOVEL, 3)]


def test_positive_keeps_the_document_and_d_j_keeps_exactly_the_first_j_conditions(spans):
    variants = build_variants(NOVEL, spans, NOVEL_NEGATIVES)
    assert [v.satisfied for v in variants] == [3, 2, 1, 0]
    assert variants[0].text == NOVEL
    for variant in variants:
        j = variant.satisfied
        for index, (condition, negative) in enumerate(zip(NOVEL_CONDITIONS, NOVEL_NEGATIVES,
                                                          strict=True)):
            if index < j:
                assert condition in variant.text and negative not in variant.text
            else:
                assert condition not in variant.text and negative in variant.text
        # untouched sentences stay, in place
        assert "Mara's brother returns after twenty years at sea" in variant.text


def test_hard_negatives_replace_conditions_in_place(spans):
    d0 = build_variants(NOVEL, spans, NOVEL_NEGATIVES)[-1].text
    order = [d0.index(NOVEL_NEGATIVES[0]), d0.index(NOVEL_NEGATIVES[1]),
             d0.index("Mara's brother"), d0.index("The island's orchard"),
             d0.index(NOVEL_NEGATIVES[2])]
    assert order == sorted(order)
    assert d0.startswith(NOVEL_NEGATIVES[0] + " ")
    assert d0.endswith(NOVEL_NEGATIVES[2])


def test_mismatched_lengths_are_refused(spans):
    with pytest.raises(ValueError, match="3 conditions but 2 hard negatives"):
        build_variants(NOVEL, spans, NOVEL_NEGATIVES[:2])


def test_overlapping_edits_are_refused():
    with pytest.raises(ValueError, match="overlap"):
        apply_edits("abcdef", [Edit(0, 3, "x"), Edit(2, 4, "y")])


def test_padding_reaches_the_target_and_is_seeded(spans):
    plan = plan_padding(NOVEL, spans, 512, seed=7)
    padded = apply_edits(NOVEL, plan)
    assert 512 <= word_count(padded) < 512 + max(word_count(s) for s in DEFAULT_FILLER)
    assert plan == plan_padding(NOVEL, spans, 512, seed=7)
    assert plan != plan_padding(NOVEL, spans, 512, seed=8)
    # the original sentences are all still there, in order
    positions = [padded.index(c) for c in NOVEL_CONDITIONS]
    assert positions == sorted(positions)


def test_padding_goes_between_sentences_never_inside_a_condition(spans):
    points = insertion_points(NOVEL, spans)
    assert points[-1] == len(NOVEL)
    for point in points:
        assert NOVEL[point - 1] == "."
        assert not any(span.start < point < span.end for span in spans)
    for edit in plan_padding(NOVEL, spans, 1024, seed=1):
        assert edit.start == edit.end and edit.start in points


def test_every_variant_gets_the_same_filler(spans):
    plan = plan_padding(NOVEL, spans, 300, seed=3)
    variants = build_variants(NOVEL, spans, NOVEL_NEGATIVES, plan)
    positive, d0 = variants[0].text, variants[-1].text
    for condition, negative in zip(NOVEL_CONDITIONS, NOVEL_NEGATIVES, strict=True):
        d0 = d0.replace(negative, condition)
    assert d0 == positive


def test_no_padding_when_the_document_is_long_enough(spans):
    assert plan_padding(NOVEL, spans, 10, seed=0) == []


def test_satisfied_counts_grow_with_conditions_kept():
    assert satisfied_counts(4, 2) == {0: 0, 1: 1, 2: 2, 3: 2, 4: 2}
