"""ComLQ complex logical queries: 14 types, structure checks, graded qrels, negation labels."""

from __future__ import annotations

from irforge.core.lazy import lazy_exports

# public name -> the submodule defining it, imported on first use (irforge/core/lazy.py)
_EXPORTS = {
    "LogicalQueryOutput": "steps",
    "NEGATION_TYPES": "types",
    "QUERY_TYPES": "types",
    "Triple": "structure",
    "TripleGroups": "structure",
    "check_structure": "structure",
    "get_type": "types",
    "graded_qrels": "labels",
    "parse_types": "types",
    "read_violations": "labels",
    "render_fol": "fol",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
