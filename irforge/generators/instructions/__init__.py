"""InfoSearch-style instruction-following benchmarks (see docs/instructions.md).

Plain-code parts (dimensions, qrels assembly, merging re-runs, review flagging) need no LLM;
the LLM steps, their output models and checks are in :mod:`.steps`, run by :mod:`.build`
through the shared step runner.
"""

from __future__ import annotations

from irforge.core.lazy import lazy_exports

# public name -> the submodule defining it, imported on first use (irforge/core/lazy.py)
_EXPORTS = {
    "Assembled": "assemble",
    "BuildReport": "build",
    "BuildSettings": "settings",
    "Dimension": "dimensions",
    "Group": "units",
    "MODES": "assemble",
    "Member": "units",
    "Pair": "pairs",
    "Unit": "units",
    "assemble": "assemble",
    "build_instructions": "build",
    "flag_for_review": "manual_review",
    "group_pairs": "pairs",
    "load_dimensions": "dimensions",
    "pairs_from_beir": "pairs",
    "queries_for_mode": "assemble",
    "read_modes": "assemble",
    "read_pairs": "pairs",
    "assembled_records": "assemble",
    "write_review_list": "manual_review",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
