"""Structure conformity (ComLQ, Expert Verification): do the triples form the type's graph?

The checker turns the grouped triples into a small undirected graph (anchors are constants,
names starting with ``?`` are variables), explains count mismatches in plain words, then
tries every node mapping onto each accepted shape of the type. Graphs have at most six
nodes, so the exhaustive search is instant and exact.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from irforge.generators.logical.types import Mark, PatternEdge, QueryType

# Bounds keep a small model from looping until max_tokens (they become grammar limits).
MAX_GROUP = 3
TERM = "an entity from the passage, or a variable such as ?v1 or ?t"


class Triple(BaseModel):
    """One edge of the query graph: constants are anchors, names starting with '?' are variables."""

    model_config = ConfigDict(frozen=True)

    subject: str = Field(max_length=100, description=TERM)
    relation: str = Field(max_length=60, description="the relation, in a few words")
    object: str = Field(max_length=100, description=TERM)


class TripleGroups(BaseModel):
    """The query's triples grouped by the set operation they take part in."""

    projection: list[Triple] = Field(default_factory=list, max_length=MAX_GROUP,
                                     description="hops of a relation chain")
    intersection: list[Triple] = Field(default_factory=list, max_length=MAX_GROUP,
                                       description="branches that must all hold")
    union: list[Triple] = Field(default_factory=list, max_length=MAX_GROUP,
                                description="alternative branches, any of which may hold")
    negation: list[Triple] = Field(default_factory=list, max_length=MAX_GROUP,
                                   description="triples that must NOT hold (written without ¬)")


GROUP_MARKS: tuple[tuple[str, Mark], ...] = (
    ("projection", "+"), ("intersection", "+"), ("union", "|"), ("negation", "-"))


@dataclass(frozen=True)
class QueryEdge:
    """One distinct triple of a query with its mark and normalised node keys."""

    triple: Triple
    mark: Mark
    left: str
    right: str

    @property
    def nodes(self) -> frozenset[str]:
        return frozenset((self.left, self.right))


@dataclass(frozen=True)
class StructureCheck:
    """The verdict: ok, the reasons when not, and which node the shape makes the answer."""

    ok: bool
    reasons: tuple[str, ...] = ()
    target: str | None = None
    edges: tuple[QueryEdge, ...] = field(default=(), repr=False)


def is_variable(term: str) -> bool:
    return term.strip().startswith("?")


def node_key(term: str) -> str:
    """Normalise a term so 'Steven Spielberg', 'StevenSpielberg' and 'steven_spielberg' agree."""
    text = term.strip()
    core = re.sub(r"[\W_]+", "", text.lstrip("?")).casefold()
    return f"?{core}" if is_variable(text) else core


def _relation_key(relation: str) -> str:
    return re.sub(r"[\W_]+", "", relation).casefold()


def collect_edges(groups: TripleGroups) -> tuple[list[QueryEdge], list[str]]:
    """Distinct triples with their marks; a triple repeated across groups is merged.

    Negation and union win over plain membership (ComLQ lists the full conjunction under
    "intersection", repeating projection and negated triples).
    """
    merged: dict[tuple[str, str, str], QueryEdge] = {}
    problems: list[str] = []
    for group, mark in GROUP_MARKS:
        for triple in getattr(groups, group):
            empty = [name for name in ("subject", "relation", "object")
                     if not getattr(triple, name).strip()]
            if empty:
                problems.append(f"{group} triple {_show(triple)} has an empty {empty[0]}")
                continue
            left, right = node_key(triple.subject), node_key(triple.object)
            if "" in (left, right) or "?" in (left, right):
                problems.append(f"{group} triple {_show(triple)} has a term with no name")
                continue
            low, high = sorted((left, right))
            key = (low, high, _relation_key(triple.relation))
            previous = merged.get(key)
            if previous is None:
                merged[key] = QueryEdge(triple, mark, left, right)
            else:
                merged[key] = QueryEdge(previous.triple, _merge(previous, mark, triple, problems),
                                        previous.left, previous.right)
    return list(merged.values()), problems


def _merge(previous: QueryEdge, mark: Mark, triple: Triple, problems: list[str]) -> Mark:
    marks = {previous.mark, mark}
    if marks == {"|", "-"}:
        problems.append(f"triple {_show(triple)} is listed both as a union alternative and as "
                        "negated")
    return "-" if "-" in marks else "|" if "|" in marks else "+"


def _show(triple: Triple) -> str:
    return f"({triple.subject}, {triple.relation}, {triple.object})"


def check_structure(groups: TripleGroups, qtype: QueryType,
                    answer_variable: str | None = None) -> StructureCheck:
    """Check that ``groups`` form exactly the graph shape of ``qtype``; explain every mismatch."""
    edges, reasons = collect_edges(groups)
    if not edges and not reasons:
        return StructureCheck(False, ("no triples given",))
    reasons += _edge_problems(edges)
    if not reasons:
        reasons += _count_problems(edges, qtype)
    if not reasons and not _connected(edges):
        reasons.append("the triples do not form one connected graph")
    if reasons:
        return StructureCheck(False, tuple(reasons), edges=tuple(edges))
    targets = {match["t"] for pattern in qtype.patterns for match in _matches(edges, pattern)}
    if not targets:
        return StructureCheck(False, (
            f"the triples do not form the {qtype.name} shape ({qtype.idea}) expected:\n"
            f"{qtype.indicator()}",), edges=tuple(edges))
    wanted = node_key(answer_variable) if answer_variable else None
    if wanted is not None and wanted not in targets:
        return StructureCheck(False, (
            f"{answer_variable} is not where the {qtype.name} shape puts the answer "
            f"(expected {', '.join(sorted(targets))})",), edges=tuple(edges))
    return StructureCheck(True, (), wanted or sorted(targets)[0], tuple(edges))


def _edge_problems(edges: Sequence[QueryEdge]) -> list[str]:
    problems = []
    for edge in edges:
        if edge.left == edge.right:
            problems.append(f"triple {_show(edge.triple)} links a term to itself")
        elif not is_variable(edge.left) and not is_variable(edge.right):
            problems.append(f"triple {_show(edge.triple)} links two constants; every triple "
                            "must contain a variable such as ?v1 or ?t")
    pairs: dict[frozenset[str], QueryEdge] = {}
    for edge in edges:
        if edge.nodes in pairs and edge.left != edge.right:
            problems.append(f"triples {_show(pairs[edge.nodes].triple)} and {_show(edge.triple)} "
                            "connect the same two terms")
        pairs.setdefault(edge.nodes, edge)
    return problems


def _count_problems(edges: Sequence[QueryEdge], qtype: QueryType) -> list[str]:
    nodes = {node for edge in edges for node in edge.nodes}
    anchors = sorted(n for n in nodes if not is_variable(n))
    variables = sorted(n for n in nodes if is_variable(n))
    problems = []
    if len(anchors) != len(qtype.anchors):
        problems.append(f"{qtype.name} needs {len(qtype.anchors)} anchor entit"
                        f"{'y' if len(qtype.anchors) == 1 else 'ies'}, found {len(anchors)}"
                        f" ({', '.join(anchors) or 'none'})")
    if len(variables) != len(qtype.variables):
        problems.append(f"{qtype.name} needs {len(qtype.variables)} variable(s) "
                        f"({len(qtype.variables) - 1} intermediate + the answer), found "
                        f"{len(variables)} ({', '.join(variables) or 'none'})")
    if len(edges) != qtype.edge_count:
        problems.append(f"{qtype.name} needs {qtype.edge_count} distinct triple(s), "
                        f"found {len(edges)}")
    for mark, word in (("-", "negated"), ("|", "union")):
        found = sum(edge.mark == mark for edge in edges)
        allowed = {sum(e.mark == mark for e in pattern) for pattern in qtype.patterns}
        if found not in allowed:
            expected = " or ".join(str(n) for n in sorted(allowed))
            problems.append(f"{qtype.name} needs {expected} {word} triple(s), found {found}")
    return problems


def _connected(edges: Sequence[QueryEdge]) -> bool:
    nodes = {node for edge in edges for node in edge.nodes}
    seen = {next(iter(nodes))}
    frontier = list(seen)
    while frontier:
        node = frontier.pop()
        for edge in edges:
            if node in edge.nodes:
                for other in edge.nodes - seen:
                    seen.add(other)
                    frontier.append(other)
    return seen == nodes


def _matches(edges: Sequence[QueryEdge], pattern: Iterable[PatternEdge]):
    """Yield every mapping pattern node -> query node that carries the pattern onto the edges."""
    pattern = tuple(pattern)
    observed = {edge.nodes: edge.mark for edge in edges}
    pnodes = sorted({n for e in pattern for n in (e.left, e.right)})
    p_anchors = [n for n in pnodes if n.startswith("a")]
    p_vars = [n for n in pnodes if not n.startswith("a")]
    nodes = sorted({n for e in edges for n in e.nodes})
    q_anchors = [n for n in nodes if not is_variable(n)]
    q_vars = [n for n in nodes if is_variable(n)]
    if len(q_anchors) != len(p_anchors) or len(q_vars) != len(p_vars):
        return
    for anchors in itertools.permutations(q_anchors):
        for variables in itertools.permutations(q_vars):
            mapping = dict(zip(p_anchors + p_vars, anchors + variables, strict=True))
            if all(observed.get(frozenset((mapping[e.left], mapping[e.right]))) == e.mark
                   for e in pattern) and len(pattern) == len(observed):
                yield mapping
