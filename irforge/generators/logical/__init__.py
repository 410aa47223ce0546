"""ComLQ complex logical queries: 14 types, structure checks, graded qrels, negation labels."""

from __future__ import annotations

from irforge.generators.logical.fol import render_fol
from irforge.generators.logical.labels import graded_qrels, read_violations
from irforge.generators.logical.steps import LogicalQueryOutput
from irforge.generators.logical.structure import Triple, TripleGroups, check_structure
from irforge.generators.logical.types import NEGATION_TYPES, QUERY_TYPES, get_type, parse_types

__all__ = [
    "NEGATION_TYPES",
    "QUERY_TYPES",
    "LogicalQueryOutput",
    "Triple",
    "TripleGroups",
    "check_structure",
    "get_type",
    "graded_qrels",
    "parse_types",
    "read_violations",
    "render_fol",
]
