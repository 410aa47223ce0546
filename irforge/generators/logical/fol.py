"""First-order-logic rendering of a checked query graph (ComLQ, Eq. 1 and Figure 1).

The answer variable becomes ``V?``, other variables ``V1, V2...`` in order of appearance.
Union alternatives are joined with ``∨``. A negated triple, together with any branch that
hangs only off it (the chain of a ``pni`` query), is rendered inside one ``¬∃...(...)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from irforge.generators.logical.structure import QueryEdge, is_variable


def predicate(relation: str) -> str:
    """'starred in' -> 'StarredIn': relation words as one CamelCase predicate name."""
    words = [w for w in re.split(r"[\W_]+", relation) if w]
    return "".join(w[:1].upper() + w[1:] for w in words) or "R"


def render_fol(edges: Sequence[QueryEdge], target: str) -> str:
    """FOL string such as ``V? . ∃V1 : Directed(Spielberg, V1) ∧ StarredIn(V1, V?) ∧ ¬...``."""
    distance = _distances(edges, target)
    edges = sorted(edges, key=lambda e: -max(distance[e.left], distance[e.right]))
    names = _variable_names(edges, target)
    labels = {**{e.left: e.triple.subject for e in edges}, **{e.right: e.triple.object
                                                               for e in edges}}

    def term(node: str) -> str:
        return names.get(node, labels[node].strip())

    def atom(edge: QueryEdge) -> str:
        return f"{predicate(edge.triple.relation)}({term(edge.left)}, {term(edge.right)})"

    inside = _target_component([e for e in edges if e.mark != "-"], target)
    negated = negated_block(edges, target)
    outer = [e for e in edges if e not in negated]
    conjuncts = [atom(e) for e in outer if e.mark == "+"]
    alternatives = [atom(e) for e in outer if e.mark == "|"]
    if alternatives:
        conjuncts.append("(" + " ∨ ".join(alternatives) + ")")
    if negated:
        hidden = sorted({names[n] for e in negated for n in e.nodes
                         if is_variable(n) and n not in inside}, key=_order)
        body = " ∧ ".join(atom(e) for e in negated)
        if hidden:
            conjuncts.append(f"¬∃{', '.join(hidden)} : ({body})")
        else:
            conjuncts.append(f"¬{body}" if len(negated) == 1 else f"¬({body})")
    free = sorted({names[n] for e in outer for n in e.nodes
                   if is_variable(n) and n != target}, key=_order)
    head = f"V? . ∃{', '.join(free)} : " if free else "V? : "
    return head + " ∧ ".join(conjuncts)


def negated_block(edges: Sequence[QueryEdge], target: str) -> list[QueryEdge]:
    """The negated triples plus any branch reachable from the answer only through them."""
    inside = _target_component([e for e in edges if e.mark != "-"], target)
    return [e for e in edges if e.mark == "-" or not e.nodes <= inside]


def _order(name: str) -> int:
    return int(name[1:])


def _variable_names(edges: Sequence[QueryEdge], target: str) -> dict[str, str]:
    names = {target: "V?"}
    for edge in edges:
        for node in (edge.left, edge.right):
            if is_variable(node) and node not in names:
                names[node] = f"V{len(names)}"
    return names


def _distances(edges: Sequence[QueryEdge], target: str) -> dict[str, int]:
    """Hops from every node to the answer, so atoms read from the anchors toward it."""
    distance = {target: 0}
    frontier = [target]
    while frontier:
        node = frontier.pop(0)
        for edge in edges:
            if node in edge.nodes:
                for other in edge.nodes - distance.keys():
                    distance[other] = distance[node] + 1
                    frontier.append(other)
    return distance


def _target_component(edges: Sequence[QueryEdge], target: str) -> set[str]:
    """Nodes reachable from the answer through edges that are not negated."""
    seen = {target}
    changed = True
    while changed:
        changed = False
        for edge in edges:
            if edge.nodes & seen and not edge.nodes <= seen:
                seen |= edge.nodes
                changed = True
    return seen
