"""Structure conformity of the 14 ComLQ types on hand-written triples."""

from __future__ import annotations

import pytest

from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.fol import render_fol
from irforge.generators.logical.structure import Triple, TripleGroups, check_structure, node_key
from irforge.generators.logical.types import (
    NEGATION_TYPES,
    QUERY_TYPES,
    TYPE_NAMES,
    UnknownTypeError,
    get_type,
    parse_types,
)


def t(subject: str, relation: str, obj: str) -> Triple:
    return Triple(subject=subject, relation=relation, object=obj)


def groups(**named: list[tuple[str, str, str]]) -> TripleGroups:
    return TripleGroups(**{name: [t(*spec) for spec in specs] for name, specs in named.items()})


# Hand-written conforming triples per type, independent of the demonstrations: other
# variable names, relations written in the reverse direction, anchors spelled differently.
CONFORMING = {
    "1p": groups(projection=[("?who", "wrote", "Dune")]),
    "2p": groups(projection=[("Dune", "written by", "?a"), ("?a", "born in", "?city")]),
    "3p": groups(projection=[("Dune", "written by", "?a"), ("?a", "born in", "?c"),
                             ("?country", "contains", "?c")]),
    "2i": groups(intersection=[("?x", "capital of", "France"), ("Seine", "flows through", "?x")]),
    "3i": groups(intersection=[("?x", "capital of", "France"), ("Seine", "flows through", "?x"),
                               ("?x", "hosted", "1900 Olympics")]),
    "pi": groups(projection=[("Nolan", "directed", "?f"), ("?f", "starred", "?a")],
                 intersection=[("?a", "won", "Oscar")]),
    "ip": groups(intersection=[("Nobel Prize", "won by", "?p"), ("Fields Medal", "won by", "?p")],
                 projection=[("?p", "studied at", "?u")]),
    "2u": groups(union=[("Bach", "composed", "?w"), ("Handel", "composed", "?w")]),
    "up": groups(union=[("Bach", "taught", "?s"), ("Handel", "taught", "?s")],
                 projection=[("?s", "born in", "?place")]),
    "2in": groups(intersection=[("Kubrick", "directed", "?f")],
                  negation=[("?f", "filmed in", "USA")]),
    "3in": groups(intersection=[("Kubrick", "directed", "?f"), ("?f", "released in", "1960s")],
                  negation=[("?f", "filmed in", "USA")]),
    "inp": groups(intersection=[("Kubrick", "directed", "?f")],
                  negation=[("?f", "filmed in", "USA")],
                  projection=[("?f", "starred", "?actor")]),
    "pin": groups(projection=[("Spielberg", "directed", "?f"), ("?f", "starred by", "?a")],
                  negation=[("?a", "nationality", "America")]),
    "pni": groups(intersection=[("?a", "born in", "London")],
                  projection=[("Nolan", "directed", "?f")],
                  negation=[("?f", "starred", "?a")]),
}


def test_registry_has_the_fourteen_types_in_paper_order():
    assert TYPE_NAMES == ("1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "2in", "3in",
                          "inp", "pin", "pni")
    assert NEGATION_TYPES == ("2in", "3in", "inp", "pin", "pni")
    assert [QUERY_TYPES[n].edge_count for n in TYPE_NAMES] == [1, 2, 3, 2, 3, 3, 3, 2, 3, 2, 3,
                                                               3, 3, 3]
    assert QUERY_TYPES["3i"].anchors == ("a1", "a2", "a3")
    assert QUERY_TYPES["3p"].variables == ("v1", "v2", "t")
    assert QUERY_TYPES["up"].has_union and not QUERY_TYPES["up"].has_negation


def test_parse_types_accepts_lists_and_all_and_rejects_unknown_names():
    assert [q.name for q in parse_types("pin, 1p,pin")] == ["pin", "1p"]
    assert len(parse_types("all")) == 14
    with pytest.raises(UnknownTypeError, match=r"unknown logical query type '4p'.*1p, 2p"):
        get_type("4p")
    with pytest.raises(UnknownTypeError, match="no query types"):
        parse_types(" , ")


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_hand_written_triples_conform_to_their_type_only(name):
    verdicts = {other: check_structure(CONFORMING[name], QUERY_TYPES[other]).ok
                for other in TYPE_NAMES}
    assert verdicts[name], check_structure(CONFORMING[name], QUERY_TYPES[name]).reasons
    assert [other for other, ok in verdicts.items() if ok] == [name]


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_each_demonstration_conforms_to_its_own_type_only(name):
    triples = DEMONSTRATIONS[name].output.triples
    assert [other for other in TYPE_NAMES
            if check_structure(triples, QUERY_TYPES[other]).ok] == [name]


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_dropping_a_triple_breaks_conformity_with_a_count_reason(name):
    original = CONFORMING[name]
    for group in ("projection", "intersection", "union", "negation"):
        items = getattr(original, group)
        if items:
            broken = original.model_copy(update={group: items[:-1]})
            break
    verdict = check_structure(broken, QUERY_TYPES[name])
    assert not verdict.ok
    assert any("needs" in reason or "no triples" in reason for reason in verdict.reasons)


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_flipping_negation_breaks_conformity(name):
    original = CONFORMING[name]
    if name in NEGATION_TYPES:  # un-negate: the negated triple becomes a plain one
        broken = original.model_copy(update={
            "negation": [], "intersection": [*original.intersection, *original.negation]})
        expected = "negated triple(s), found 0"
    else:  # negate the last plain triple
        plain = [*original.projection, *original.intersection, *original.union]
        broken = TripleGroups(projection=[x for x in plain[:-1] if x not in original.union],
                              union=[x for x in original.union if x != plain[-1]],
                              negation=[plain[-1]])
        expected = "needs 0 negated triple(s), found 1"
    verdict = check_structure(broken, QUERY_TYPES[name])
    assert not verdict.ok
    assert any(expected in reason for reason in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("name", ["2u", "up"])
def test_union_branches_listed_as_intersection_are_rejected(name):
    original = CONFORMING[name]
    broken = original.model_copy(update={"union": [], "intersection": original.union})
    verdict = check_structure(broken, QUERY_TYPES[name])
    assert not verdict.ok and "needs 2 union triple(s), found 0" in verdict.reasons[0]


def test_paper_positive_pin_example_conforms_with_the_full_conjunction_repeated():
    # ComLQ Table 2, positive query, including its "Intersection" line that repeats every triple.
    spielberg = groups(
        projection=[("StevenSpielberg", "directed", "?y"), ("?y", "starred by", "?z")],
        negation=[("?z", "nationality", "America")],
        intersection=[("StevenSpielberg", "directed", "?y"), ("?y", "starred by", "?z"),
                      ("?z", "nationality", "America")])
    verdict = check_structure(spielberg, get_type("pin"), answer_variable="?z")
    assert verdict.ok and verdict.target == "?z"
    assert render_fol(verdict.edges, verdict.target) == (
        "V? . ∃V1 : Directed(StevenSpielberg, V1) ∧ StarredBy(V1, V?) ∧ "
        "¬Nationality(V?, America)")


def test_paper_negative_pin_example_is_rejected_as_pin_and_is_really_2in():
    # ComLQ Table 2, negative query: a one-hop projection is not pin's two-hop chain.
    ibm = groups(projection=[("IBM", "considered_processors", "?y")],
                 negation=[("IBM PC", "used_processor", "?y")],
                 intersection=[("IBM", "considered_processors", "?y"),
                               ("IBM PC", "used_processor", "?y")])
    verdict = check_structure(ibm, get_type("pin"))
    assert not verdict.ok
    assert verdict.reasons == ("pin needs 2 variable(s) (1 intermediate + the answer), found 1 "
                               "(?y)", "pin needs 3 distinct triple(s), found 2")
    assert check_structure(ibm, get_type("2in")).ok


def test_negation_on_the_wrong_node_is_not_pin():
    # The negated triple hangs off the film (?f), not the answer: that is inp's shape.
    wrong = groups(projection=[("Spielberg", "directed", "?f"), ("?f", "starred", "?a")],
                   negation=[("?f", "genre", "Western")])
    verdict = check_structure(wrong, get_type("pin"))
    assert not verdict.ok and "do not form the pin shape" in verdict.reasons[0]
    assert check_structure(wrong, get_type("inp")).ok


def test_answer_variable_must_sit_where_the_shape_puts_the_answer():
    chain = CONFORMING["2p"]
    assert check_structure(chain, get_type("2p"), answer_variable="?city").ok
    verdict = check_structure(chain, get_type("2p"), answer_variable="?a")
    assert not verdict.ok and "?a is not where the 2p shape puts the answer" in verdict.reasons[0]


@pytest.mark.parametrize(("triples", "reason"), [
    (groups(), "no triples given"),
    (groups(projection=[("Dune", "written by", "Herbert")]), "links two constants"),
    (groups(projection=[("?x", "same as", "?x")]), "links a term to itself"),
    (groups(projection=[("Dune", "", "?x")]), "has an empty relation"),
    (groups(projection=[("Dune", "by", "?")]), "has a term with no name"),
    (groups(union=[("A", "r", "?x")], negation=[("A", "r", "?x")]),
     "both as a union alternative and as negated"),
    (groups(intersection=[("A", "r", "?x"), ("?x", "s", "A")]), "connect the same two terms"),
])
def test_malformed_triples_are_explained(triples, reason):
    verdict = check_structure(triples, get_type("2i"))
    assert not verdict.ok
    assert any(reason in text for text in verdict.reasons), verdict.reasons


def test_disconnected_triples_are_rejected():
    split = groups(intersection=[("A", "r", "?x"), ("B", "s", "?y")],
                   projection=[("C", "q", "?y")])
    verdict = check_structure(split, get_type("3i"))
    assert not verdict.ok


def test_disconnected_graph_with_right_counts_names_connectivity():
    # 2 anchors, 2 variables, 3 edges (pi's counts) but ?x is cut off from ?y's component.
    split = groups(projection=[("A", "r", "?x"), ("?y", "s", "B"), ("B", "u", "?x")])
    assert check_structure(split, get_type("pi")).ok is False
    island = groups(projection=[("A", "r", "?x"), ("?x", "s", "B"), ("?y", "u", "?z")])
    verdict = check_structure(island, get_type("3p"))
    assert not verdict.ok


def test_anchor_spelling_variants_name_the_same_node():
    assert node_key("Steven Spielberg") == node_key("StevenSpielberg") == node_key(
        "steven_spielberg")
    assert node_key("?Y") == "?y"
    same = groups(intersection=[("Steven Spielberg", "directed", "?f"),
                                ("StevenSpielberg", "produced", "?f")])
    verdict = check_structure(same, get_type("2i"))
    assert not verdict.ok  # one anchor reached twice is not two anchors


@pytest.mark.parametrize(("name", "fol"), [
    ("2u", "V? : (Composed(Bach, V?) ∨ Composed(Handel, V?))"),
    ("up", "V? . ∃V1 : BornIn(V1, V?) ∧ (Taught(Bach, V1) ∨ Taught(Handel, V1))"),
    ("inp", "V? . ∃V1 : Directed(Kubrick, V1) ∧ Starred(V1, V?) ∧ ¬FilmedIn(V1, USA)"),
    ("pni", "V? : BornIn(V?, London) ∧ ¬∃V1 : (Directed(Nolan, V1) ∧ Starred(V1, V?))"),
])
def test_fol_rendering(name, fol):
    verdict = check_structure(CONFORMING[name], get_type(name))
    assert render_fol(verdict.edges, verdict.target) == fol


def test_pni_accepts_the_whole_chain_negated():
    whole = groups(intersection=[("?a", "born in", "London")],
                   negation=[("Nolan", "directed", "?f"), ("?f", "starred", "?a")])
    verdict = check_structure(whole, get_type("pni"))
    assert verdict.ok
    assert render_fol(verdict.edges, verdict.target) == (
        "V? : BornIn(V?, London) ∧ ¬∃V1 : (Directed(Nolan, V1) ∧ Starred(V1, V?))")


def test_indicator_lists_every_edge_with_its_mark():
    assert get_type("pin").indicator() == (
        "(A1, R1, ?v1)  [must hold]\n(?v1, R2, ?t)  [must hold]\n(A2, R3, ?t)  [negated]")


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_each_demonstration_passes_the_logical_grounding_rule(name):
    """A demonstration is what the model imitates: it must itself pass the rule its queries meet."""
    from irforge.check.base import Case, Context
    from irforge.check.suite import validate
    from irforge.core.records import Doc, Query

    demo = DEMONSTRATIONS[name]
    output = demo.output
    doc = Doc("demo", demo.passage)
    evidence = [{"doc_id": "demo", "text": item.text} for item in output.evidence]
    query = Query("q", output.query, {"answer": output.answer, "evidence": evidence})
    case = Case(query, {"text": output.query}, positives=(doc,), source=doc)
    findings = validate(case, Context(docs={"demo": doc}), only=["grounding.answer"])
    assert findings == []
