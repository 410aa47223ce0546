"""InfoSearch-style instruction-following benchmarks (see docs/instructions.md).

Plain-code parts (dimensions, qrels assembly, merging re-runs, review flagging) need no LLM;
the LLM steps, their output models and checks are in :mod:`.steps`, run by :mod:`.build`
through the shared step runner.
"""

from __future__ import annotations

from irforge.generators.instructions.assemble import (
    MODES,
    Assembled,
    assemble,
    queries_for_mode,
    read_modes,
    write_assembled,
)
from irforge.generators.instructions.build import BuildReport, BuildSettings, build_instructions
from irforge.generators.instructions.dimensions import Dimension, load_dimensions
from irforge.generators.instructions.manual_review import flag_for_review, write_review_list
from irforge.generators.instructions.pairs import Pair, group_pairs, pairs_from_beir, read_pairs
from irforge.generators.instructions.units import Group, Member, Unit

__all__ = [
    "MODES", "Assembled", "BuildReport", "BuildSettings", "Dimension", "Group", "Member", "Pair",
    "Unit", "assemble", "build_instructions", "flag_for_review", "group_pairs",
    "load_dimensions", "pairs_from_beir", "queries_for_mode", "read_modes", "read_pairs",
    "write_assembled", "write_review_list",
]
