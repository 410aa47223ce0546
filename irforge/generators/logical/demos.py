"""One demonstration per query type, on invented passages written for irforge.

ComLQ's prompt has three parts: definition, subgraph indicator, demonstration (Figure 3).
The demonstrations use a small fictional world so every fact in them is true by
construction; the tests check that each one passes the structure checker for its own type
and for no other, and the logical grounding rule (answer and entities in the evidence sentences,
each sentence quoted from its passage) that generated queries must pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from irforge.generators.logical.query_schema import (
    Demonstration,
    Evidence,
    Excluded,
    LogicalQueryOutput,
)
from irforge.generators.logical.structure import Triple, TripleGroups


def _t(subject: str, relation: str, obj: str) -> Triple:
    return Triple(subject=subject, relation=relation, object=obj)


def _demo(passage: str, query: str, answer: str, evidence: list[str],
          excluded: tuple[str, str, str] | None = None, **groups) -> Demonstration:
    """One worked example; ``excluded`` (negation types): the entity its negation rules
    out, a sentence showing it meets the rest of the query and one stating the negated fact."""
    triples = TripleGroups(**{name: [_t(*spec) for spec in specs]
                              for name, specs in groups.items()})
    ruled_out = () if excluded is None else (Excluded(
        entity=excluded[0], meets=Evidence(passage=1, text=excluded[1]),
        ruled_out=Evidence(passage=1, text=excluded[2])),)
    return Demonstration(passage, LogicalQueryOutput(
        query=query, answer=answer, triples=triples,
        evidence=[Evidence(passage=1, text=text) for text in evidence]), ruled_out)


_BRIDGE = ("The Arden Bridge, opened in 1902, was designed by the engineer Clara Voss. Voss "
           "trained at the Hollis Institute of Technology, which is located in the city of "
           "Dunmore.")
_FILMS = ("Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014). Quiet Harbor starred "
          "Tomas Reyes and Ada Kim and won the Golden Reed award; Salt Roads won no award. Ada "
          "Kim and June Park were both born in Dunmore, while Tomas Reyes was born in Port Elam. "
          "Marco Bell directed Iron Meadow, starring June Park and Tomas Reyes. June Park later "
          "founded the Lantern Theatre.")
_ORCHARD = ("The Vell Orchard grows three apple varieties: Redmere, Ashcot and Linnet. Redmere "
            "and Ashcot are sold at the Dunmore market. Redmere is exported to Port Elam, while "
            "Ashcot is too soft to ship.")

_DEMOS = {
    "1p": _demo(_BRIDGE, "Who designed the Arden Bridge?", "Clara Voss",
                ["The Arden Bridge, opened in 1902, was designed by the engineer Clara Voss."],
                projection=[("Arden Bridge", "designed by", "?t")]),
    "2p": _demo(_BRIDGE, "Where did the engineer who designed the Arden Bridge train?",
                "Hollis Institute of Technology",
                ["The Arden Bridge, opened in 1902, was designed by the engineer Clara Voss.",
                 "Voss trained at the Hollis Institute of Technology"],
                projection=[("Arden Bridge", "designed by", "?v1"), ("?v1", "trained at", "?t")]),
    "3p": _demo(_BRIDGE, "In which city is the institute where the designer of the Arden "
                "Bridge trained?", "Dunmore",
                ["The Arden Bridge, opened in 1902, was designed by the engineer Clara Voss.",
                 "Voss trained at the Hollis Institute of Technology, which is located in the "
                 "city of Dunmore."],
                projection=[("Arden Bridge", "designed by", "?v1"), ("?v1", "trained at", "?v2"),
                            ("?v2", "located in", "?t")]),
    "2i": _demo(_FILMS, "Which film was directed by Lena Ortiz and won the Golden Reed award?",
                "Quiet Harbor",
                ["Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014).",
                 "Quiet Harbor starred Tomas Reyes and Ada Kim and won the Golden Reed award"],
                intersection=[("Lena Ortiz", "directed", "?t"),
                              ("Golden Reed", "awarded to", "?t")]),
    "3i": _demo(_FILMS, "Which film directed by Lena Ortiz, starring Ada Kim, won the Golden "
                "Reed award?", "Quiet Harbor",
                ["Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014).",
                 "Quiet Harbor starred Tomas Reyes and Ada Kim and won the Golden Reed award"],
                intersection=[("Lena Ortiz", "directed", "?t"), ("Ada Kim", "starred in", "?t"),
                              ("Golden Reed", "awarded to", "?t")]),
    "pi": _demo(_FILMS, "Which actor starred in a film directed by Lena Ortiz and was born in "
                "Port Elam?", "Tomas Reyes",
                ["Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014).",
                 "Quiet Harbor starred Tomas Reyes and Ada Kim",
                 "Tomas Reyes was born in Port Elam."],
                projection=[("Lena Ortiz", "directed", "?v1"), ("?v1", "starred", "?t")],
                intersection=[("Port Elam", "birthplace of", "?t")]),
    "ip": _demo(_FILMS, "Which theatre was founded by the Dunmore-born actor who starred in "
                "Iron Meadow?", "Lantern Theatre",
                ["Ada Kim and June Park were both born in Dunmore",
                 "Marco Bell directed Iron Meadow, starring June Park and Tomas Reyes.",
                 "June Park later founded the Lantern Theatre."],
                intersection=[("Dunmore", "birthplace of", "?v1"),
                              ("Iron Meadow", "starred", "?v1")],
                projection=[("?v1", "founded", "?t")]),
    "2u": _demo(_FILMS, "Which films were directed by Lena Ortiz or by Marco Bell?",
                "Quiet Harbor, Salt Roads, Iron Meadow",
                ["Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014).",
                 "Marco Bell directed Iron Meadow, starring June Park and Tomas Reyes."],
                union=[("Lena Ortiz", "directed", "?t"), ("Marco Bell", "directed", "?t")]),
    "up": _demo(_FILMS, "Who starred in a film that won the Golden Reed award or was directed "
                "by Marco Bell?", "Tomas Reyes, Ada Kim, June Park",
                ["Quiet Harbor starred Tomas Reyes and Ada Kim and won the Golden Reed award",
                 "Marco Bell directed Iron Meadow, starring June Park and Tomas Reyes."],
                union=[("Golden Reed", "awarded to", "?v1"), ("Marco Bell", "directed", "?v1")],
                projection=[("?v1", "starred", "?t")]),
    "2in": _demo(_FILMS, "Which film directed by Lena Ortiz did not win the Golden Reed award?",
                 "Salt Roads",
                 ["Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014).",
                  "Quiet Harbor starred Tomas Reyes and Ada Kim and won the Golden Reed award; "
                  "Salt Roads won no award."],
                 excluded=("Quiet Harbor",
                           "Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014).",
                           "Quiet Harbor starred Tomas Reyes and Ada Kim and won the Golden "
                           "Reed award"),
                 intersection=[("Lena Ortiz", "directed", "?t")],
                 negation=[("Golden Reed", "awarded to", "?t")]),
    "3in": _demo(_ORCHARD, "Which apple variety grown at the Vell Orchard and sold at the "
                 "Dunmore market is not exported to Port Elam?", "Ashcot",
                 ["The Vell Orchard grows three apple varieties: Redmere, Ashcot and Linnet.",
                  "Redmere and Ashcot are sold at the Dunmore market.",
                  "Redmere is exported to Port Elam, while Ashcot is too soft to ship."],
                 excluded=("Redmere", "Redmere and Ashcot are sold at the Dunmore market.",
                           "Redmere is exported to Port Elam, while Ashcot is too soft to "
                           "ship."),
                 intersection=[("Vell Orchard", "grows", "?t"),
                               ("Dunmore market", "sells", "?t")],
                 negation=[("Port Elam", "imports", "?t")]),
    "inp": _demo(_FILMS, "Where was the actor born who starred in Quiet Harbor but not in Iron "
                 "Meadow?", "Dunmore",
                 ["Quiet Harbor starred Tomas Reyes and Ada Kim",
                  "Marco Bell directed Iron Meadow, starring June Park and Tomas Reyes.",
                  "Ada Kim and June Park were both born in Dunmore"],
                 excluded=("Tomas Reyes", "Quiet Harbor starred Tomas Reyes and Ada Kim",
                           "Marco Bell directed Iron Meadow, starring June Park and Tomas "
                           "Reyes."),
                 intersection=[("Quiet Harbor", "starred", "?v1")],
                 negation=[("Iron Meadow", "starred", "?v1")],
                 projection=[("?v1", "born in", "?t")]),
    "pin": _demo(_FILMS, "Which actor starred in a film directed by Lena Ortiz but was not born "
                 "in Port Elam?", "Ada Kim",
                 ["Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014).",
                  "Quiet Harbor starred Tomas Reyes and Ada Kim",
                  "Ada Kim and June Park were both born in Dunmore, while Tomas Reyes was born "
                  "in Port Elam."],
                 excluded=("Tomas Reyes", "Quiet Harbor starred Tomas Reyes and Ada Kim",
                           "Ada Kim and June Park were both born in Dunmore, while Tomas Reyes "
                           "was born in Port Elam."),
                 projection=[("Lena Ortiz", "directed", "?v1"), ("?v1", "starred", "?t")],
                 negation=[("Port Elam", "birthplace of", "?t")]),
    "pni": _demo(_FILMS, "Which actor born in Dunmore never starred in a film directed by Lena "
                 "Ortiz?", "June Park",
                 ["Ada Kim and June Park were both born in Dunmore",
                  "Lena Ortiz directed Quiet Harbor (2011) and Salt Roads (2014).",
                  "Quiet Harbor starred Tomas Reyes and Ada Kim"],
                 excluded=("Ada Kim", "Ada Kim and June Park were both born in Dunmore",
                           "Quiet Harbor starred Tomas Reyes and Ada Kim"),
                 intersection=[("Dunmore", "birthplace of", "?t")],
                 projection=[("Lena Ortiz", "directed", "?v1")],
                 negation=[("?v1", "starred", "?t")]),
}

DEMONSTRATIONS: Mapping[str, Demonstration] = MappingProxyType(_DEMOS)
