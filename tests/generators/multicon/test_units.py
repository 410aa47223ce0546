"""Condition units: a sentence that points back is joined to the sentence naming its referent,
or is no condition at all; units never overlap (irforge/generators/multicon/units.py)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from irforge.check.referents import opening_anaphor
from irforge.generators.multicon.sentences import Span, split_sentences
from irforge.generators.multicon.steps import candidate_sentences, validate_conditions
from irforge.generators.multicon.units import MAX_RUN, condition_units, resolved
from irforge.steps.failures import Rejected

SAWS = ("The workshop lends 6 cordless circular saws made by Festo. Each saw comes with two "
        "batteries and a rip fence.\n\n"
        "For curved cuts, ask for one of the 2 jigsaws from Hartwell. They cut wood up to 60 mm "
        "thick and take a dust bag. It clips onto the side of the base.\n\n"
        "They are not lent to under-16s without a signed form from a parent.")


def test_a_sentence_that_points_back_is_joined_to_its_referent() -> None:
    texts = [unit.text for unit in condition_units(SAWS)]
    jigsaws = next(t for t in texts if "60 mm" in t)
    assert jigsaws.startswith("For curved cuts, ask for one of the 2 jigsaws from Hartwell.")
    assert jigsaws.endswith("It clips onto the side of the base.")
    assert not any(opening_anaphor(t) for t in texts)  # every unit names its own subject


def test_units_never_overlap_and_keep_the_documents_text() -> None:
    units = condition_units(SAWS)
    for unit in units:
        assert SAWS[unit.start:unit.end] == unit.text
    for first, second in pairwise(units):
        assert first.end <= second.start


def test_a_referent_outside_the_paragraph_leaves_the_sentence_out() -> None:
    texts = [unit.text for unit in condition_units(SAWS)]
    assert not any("under-16s" in t for t in texts)  # "They are not lent ..." opens a paragraph


def test_a_run_longer_than_max_run_drops_the_rest() -> None:
    chain = "The Ashby lathe turns bowls. " + " ".join(
        f"It has feature number {i} for turners." for i in range(1, MAX_RUN + 2))
    units = condition_units(chain)
    assert len(units) == 1 and len(split_sentences(units[0].text)) == MAX_RUN
    assert f"feature number {MAX_RUN}" not in units[0].text  # the run is full: left out


def test_step_one_chooses_among_units() -> None:
    assert [s.text for s in candidate_sentences(SAWS)] == [u.text for u in
                                                           condition_units(SAWS)]


def test_a_given_condition_that_points_back_carries_its_referent() -> None:
    located = validate_conditions([
        "The workshop lends 6 cordless circular saws made by Festo.",
        "They cut wood up to 60 mm thick and take a dust bag."], SAWS, 2)
    assert located[1].span.text.startswith("For curved cuts, ask for one of the 2 jigsaws")
    assert SAWS[located[1].span.start:located[1].span.end] == located[1].span.text


def test_a_given_condition_without_its_referent_is_rejected() -> None:
    with pytest.raises(Rejected, match="opens with 'They', whose referent is not in the"):
        validate_conditions([
            "The workshop lends 6 cordless circular saws made by Festo.",
            "They are not lent to under-16s without a signed form from a parent."], SAWS, 2)


def test_resolved_returns_a_self_contained_span_unchanged() -> None:
    first = split_sentences(SAWS)[0]
    assert resolved(first, SAWS) == first
    lost = Span(SAWS.index("They are not"), len(SAWS), SAWS[SAWS.index("They are not"):])
    assert resolved(lost, SAWS) is None
