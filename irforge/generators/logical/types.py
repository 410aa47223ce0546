"""The 14 ComLQ query types as a registry of graph-shape specs.

Shapes follow the standard definitions ComLQ adopts (Ren & Leskovec 2020, BetaE): ``p``
projection, ``i`` intersection, ``u`` union, ``n`` negation. A shape is a tiny graph over
pattern nodes: anchors ``a1..a3`` (constants from the passage), intermediate variables
``v1, v2`` and the target ``t`` (the answer). Each edge carries a mark: ``+`` must hold,
``-`` must not hold (negation), ``|`` one alternative of a union. Edges are undirected
because a relation can be phrased either way ("directed" / "directed by").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from irforge.core.errors import IrforgeError

Mark = Literal["+", "-", "|"]
MARK_WORDS: Mapping[str, str] = MappingProxyType(
    {"+": "must hold", "-": "negated", "|": "union alternative"})


@dataclass(frozen=True)
class PatternEdge:
    """One edge of a type's shape between two pattern nodes."""

    left: str
    right: str
    mark: Mark = "+"
    relation: str = "r"


@dataclass(frozen=True)
class QueryType:
    """A logical query type: its shape(s), set-notation definition and what it means."""

    name: str
    definition: str
    idea: str
    patterns: tuple[tuple[PatternEdge, ...], ...]

    @property
    def pattern(self) -> tuple[PatternEdge, ...]:
        """The main shape (the first of the accepted variants)."""
        return self.patterns[0]

    @property
    def edge_count(self) -> int:
        return len(self.pattern)

    @property
    def anchors(self) -> tuple[str, ...]:
        return _nodes(self.pattern, "a")

    @property
    def variables(self) -> tuple[str, ...]:
        return (*_nodes(self.pattern, "v"), "t")

    @property
    def has_negation(self) -> bool:
        return any(edge.mark == "-" for edge in self.pattern)

    @property
    def has_union(self) -> bool:
        return any(edge.mark == "|" for edge in self.pattern)

    @property
    def max_passages(self) -> int:
        """At most one passage per edge, so that every passage can carry part of the evidence."""
        return min(3, self.edge_count)

    def indicator(self) -> str:
        """The subgraph indicator shown to the LLM, one line per edge of every accepted shape."""
        blocks = []
        for number, pattern in enumerate(self.patterns, start=1):
            lines = [f"({_label(e.left)}, {e.relation}, {_label(e.right)})  [{MARK_WORDS[e.mark]}]"
                     for e in pattern]
            head = f"shape {number}:\n" if len(self.patterns) > 1 else ""
            blocks.append(head + "\n".join(lines))
        return "\n".join(blocks)


def _nodes(pattern: tuple[PatternEdge, ...], prefix: str) -> tuple[str, ...]:
    names = {node for edge in pattern for node in (edge.left, edge.right) if node[0] == prefix}
    return tuple(sorted(names))


def _label(node: str) -> str:
    """How a pattern node is written to the LLM: anchors as A1.., variables as ?v1.., ?t."""
    return node.upper() if node.startswith("a") else f"?{node}"


def _edges(*specs: str) -> tuple[PatternEdge, ...]:
    """Parse compact edge specs like ``"a1 r1 v1 +"`` into pattern edges."""
    edges = []
    for spec in specs:
        left, relation, right, mark = spec.split()
        edges.append(PatternEdge(left, right, mark, relation.upper()))  # type: ignore[arg-type]
    return tuple(edges)


_TYPES = (
    QueryType("1p", "{?t | (A1, R1, ?t)}",
              "one hop: the answer is linked to one anchor entity by one relation.",
              (_edges("a1 r1 t +"),)),
    QueryType("2p", "{?t | ∃?v1: (A1, R1, ?v1) ∧ (?v1, R2, ?t)}",
              "a chain of two hops through one unknown intermediate entity.",
              (_edges("a1 r1 v1 +", "v1 r2 t +"),)),
    QueryType("3p", "{?t | ∃?v1, ?v2: (A1, R1, ?v1) ∧ (?v1, R2, ?v2) ∧ (?v2, R3, ?t)}",
              "a chain of three hops through two unknown intermediate entities.",
              (_edges("a1 r1 v1 +", "v1 r2 v2 +", "v2 r3 t +"),)),
    QueryType("2i", "{?t | (A1, R1, ?t)} ∩ {?t | (A2, R2, ?t)}",
              "the answer satisfies two one-hop constraints from two different anchors.",
              (_edges("a1 r1 t +", "a2 r2 t +"),)),
    QueryType("3i", "{?t | (A1, R1, ?t)} ∩ {?t | (A2, R2, ?t)} ∩ {?t | (A3, R3, ?t)}",
              "the answer satisfies three one-hop constraints from three different anchors.",
              (_edges("a1 r1 t +", "a2 r2 t +", "a3 r3 t +"),)),
    QueryType("pi", "{?t | ∃?v1: (A1, R1, ?v1) ∧ (?v1, R2, ?t)} ∩ {?t | (A2, R3, ?t)}",
              "a two-hop chain ends at the answer, which must also meet a one-hop constraint.",
              (_edges("a1 r1 v1 +", "v1 r2 t +", "a2 r3 t +"),)),
    QueryType("ip", "{?t | ∃?v1 ∈ ({?v1 | (A1, R1, ?v1)} ∩ {?v1 | (A2, R2, ?v1)}): "
                    "(?v1, R3, ?t)}",
              "first intersect two constraints to find an intermediate entity, then hop once "
              "from it to the answer.",
              (_edges("a1 r1 v1 +", "a2 r2 v1 +", "v1 r3 t +"),)),
    QueryType("2u", "{?t | (A1, R1, ?t)} ∪ {?t | (A2, R2, ?t)}",
              "the answer satisfies at least one of two one-hop alternatives.",
              (_edges("a1 r1 t |", "a2 r2 t |"),)),
    QueryType("up", "{?t | ∃?v1 ∈ ({?v1 | (A1, R1, ?v1)} ∪ {?v1 | (A2, R2, ?v1)}): "
                    "(?v1, R3, ?t)}",
              "first take the union of two alternatives, then hop once from it to the answer.",
              (_edges("a1 r1 v1 |", "a2 r2 v1 |", "v1 r3 t +"),)),
    QueryType("2in", "{?t | (A1, R1, ?t)} ∩ {?t | ¬(A2, R2, ?t)}",
              "one constraint must hold and a second one-hop constraint must not.",
              (_edges("a1 r1 t +", "a2 r2 t -"),)),
    QueryType("3in", "{?t | (A1, R1, ?t)} ∩ {?t | (A2, R2, ?t)} ∩ {?t | ¬(A3, R3, ?t)}",
              "two constraints must hold and a third one-hop constraint must not.",
              (_edges("a1 r1 t +", "a2 r2 t +", "a3 r3 t -"),)),
    QueryType("inp", "{?t | ∃?v1 ∈ ({?v1 | (A1, R1, ?v1)} ∩ {?v1 | ¬(A2, R2, ?v1)}): "
                     "(?v1, R3, ?t)}",
              "find an intermediate entity that meets one constraint but not another, then hop "
              "once from it to the answer.",
              (_edges("a1 r1 v1 +", "a2 r2 v1 -", "v1 r3 t +"),)),
    QueryType("pin", "{?t | ∃?v1: (A1, R1, ?v1) ∧ (?v1, R2, ?t)} ∩ {?t | ¬(A2, R3, ?t)}",
              "a two-hop chain ends at the answer, and a one-hop constraint on the answer "
              "must NOT hold.",
              (_edges("a1 r1 v1 +", "v1 r2 t +", "a2 r3 t -"),)),
    QueryType("pni", "{?t | ¬∃?v1: (A1, R1, ?v1) ∧ (?v1, R2, ?t)} ∩ {?t | (A2, R3, ?t)}",
              "a one-hop constraint on the answer holds, and the answer must NOT be reachable "
              "through a two-hop chain; the chain's last hop is the negated triple.",
              (_edges("a1 r1 v1 +", "v1 r2 t -", "a2 r3 t +"),
               _edges("a1 r1 v1 -", "v1 r2 t -", "a2 r3 t +"))),
)

QUERY_TYPES: Mapping[str, QueryType] = MappingProxyType({t.name: t for t in _TYPES})
TYPE_NAMES: tuple[str, ...] = tuple(QUERY_TYPES)
NEGATION_TYPES: tuple[str, ...] = tuple(t.name for t in _TYPES if t.has_negation)


class UnknownTypeError(IrforgeError, ValueError):
    """A query type name not among the 14 ComLQ types."""


def get_type(name: str) -> QueryType:
    """The type named ``name`` (for example ``"pin"``), or a clear error listing valid names."""
    try:
        return QUERY_TYPES[name.strip()]
    except KeyError:
        raise UnknownTypeError(f"unknown logical query type {name!r}; choose from "
                               f"{', '.join(TYPE_NAMES)}") from None


def parse_types(spec: str) -> list[QueryType]:
    """Types from a comma-separated list such as ``"1p,2i,pin"``; ``"all"`` gives all 14."""
    if spec.strip().lower() == "all":
        return list(_TYPES)
    names = [part.strip() for part in spec.split(",") if part.strip()]
    if not names:
        raise UnknownTypeError("no query types given; pass e.g. --types 1p,2i,pin or all")
    return [get_type(name) for name in dict.fromkeys(names)]
