"""Generation runs the validator registry through the gates: scripted bad answers are rejected
with the validator's name, good ones are kept, and the kept output passes ``irforge check``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.core.records import Doc
from irforge.generators.intents import (
    ChosenTaxonomy,
    build_intents,
    load_intents,
    load_taxonomy,
    select_intents,
)
from irforge.steps.gates import validating_gates
from irforge.steps.runner import BuildRunner
from tests.generators.fake_engine import FakeEngine

# passages of real length (the source selector turns away fragments under 25 words)
DOCS = [
    Doc("b1", "Road tyres 25 mm wide run at 80 to 100 psi. Wet roads call for 10 psi less. "
        "Check them with a floor gauge before every ride, because a slow leak can go "
        "unnoticed for a week.", "Tyre pressure"),
    Doc("b2", "Tubeless tyres hold 30 to 60 ml of latex sealant, which dries out within two "
        "to six months. Shake the bottle well and top it up through the valve after removing "
        "the core.", "Tubeless sealant"),
    Doc("b3", "Replace an 11-speed chain at 0.5% elongation; a worn chain wears the cassette. "
        "A simple checker tool shows the stretch in seconds, so measure it every few hundred "
        "kilometres.", "Chain wear"),
    Doc("b4", "Bleed hydraulic brakes that feel spongy; Shimano brakes use mineral oil. Never "
        "mix it with DOT fluid, which swells the seals and ruins the calipers within a few "
        "days.", "Hydraulic brakes"),
]
GOOD = {"b1": "How much lower should tyre pressure be on wet roads?",
        "b2": "How long does tubeless sealant take to dry out?",
        "b3": "At what elongation should an 11-speed chain be replaced?",
        "b4": "Why do spongy hydraulic brakes need a bleed?"}
BAD = {"b1": "How long can I borrow an e-reader from the library?",  # the prompt's example
       "b2": "Do Continental tubeless tyres hold 90 ml of sealant?",  # invented name, number
       "b3": "Query: when should a worn chain be replaced?",  # template debris
       "b4": "Brakes bleed."}  # a claim for a QA intent


def _seed(item: Any) -> str:
    return next(d.doc_id for d in DOCS if d.text in item["passage"])


def _engine(bad: bool) -> FakeEngine:
    def query(item: Any) -> dict[str, str]:
        seed = _seed(item)
        return {"query": (BAD if bad else GOOD)[seed], "passage": "unused"}

    def needs(item: Any) -> dict[str, list[str]]:
        words = next(d for d in DOCS if d.doc_id == _seed(item)).text.split()
        # the echoed query gets a need it shares words with, so the step's own need check
        # passes it on to the gates, where the registry's echo rule rejects it
        echoed = " and how long to borrow from the library" if bad and _seed(item) == "b1" \
            else ""
        return {"needs": [" ".join(words[:5]).lower() + echoed]}

    return FakeEngine({"intents.qa_needs": needs,
                       "intents.qa_query": query})


def _build(root: Path, bad: bool) -> Benchmark:
    taxonomy = root / "tax.yaml"
    taxonomy.parent.mkdir(parents=True, exist_ok=True)
    taxonomy.write_text("categories:\n  - {name: Bikes, keywords: [tyres, chain, brakes, "
                        "sealant, tyre]}\n", encoding="utf-8")
    bench = Benchmark(root / "bench")
    build_intents(BuildRunner.open(_engine(bad), bench.root, "intents"), DOCS,
                  select_intents(load_intents(), ["QA"]), ChosenTaxonomy(load_taxonomy(taxonomy)),
                  per_task=4, seed=0, n_needs=1)
    return bench


def test_bad_answers_are_rejected_by_name_and_good_ones_pass_their_own_check(tmp_path):
    bad = _build(tmp_path / "bad", bad=True)
    reasons = " | ".join(f.reason for f in bad.failures())
    for name in ("grounding.query", "form.debris"):
        assert f"validator {name}:" in reasons, (name, reasons)
    # the echo and the statement are the registry's (the intents step has no copy of them)
    assert "validator echo:" in reasons and "repeats the prompt's example" not in reasons
    assert "validator form.intent_type:" in reasons and "is a statement" not in reasons
    assert not bad.queries_path.exists() or not list(bad.queries())
    good = _build(tmp_path / "good", bad=False)
    kept = list(good.queries())
    assert len(kept) == len(GOOD)
    assert all(q.metadata["positive_doc_id"] == q.metadata["seed_doc_id"] for q in kept)
    assert not any(d.metadata.get("generated") for d in good.corpus())  # default: none added
    report = check_benchmark(good.root)  # qrels come later (irforge label): only that missing
    assert [p.message for p in report.problems] == ["no qrels split found"]
    assert not report.audit.invalid and set(report.audit.ranks) == {q.query_id for q in kept}
    # each kept query carries the rank the gates' target validator recorded, and
    # ``irforge check`` finds the same rank for it on the written folder
    for query in kept:
        target = query.metadata["target"]
        assert target["positives"] == [query.metadata["seed_doc_id"]]
        assert target["rank"] == report.audit.ranks[query.query_id] <= target["k"] == 3


def test_the_gate_hook_reads_each_methods_metadata():
    gates = validating_gates(DOCS, "en")
    source = (DOCS[2].title, DOCS[2].text)
    # logical: the answer must be in the evidence sentences
    evidence = [{"passage": 1, "doc_id": "b3", "text": "Replace an 11-speed chain at 0.5% "
                 "elongation"}]
    assert gates.check(["When should an 11-speed chain be replaced?"], source,
                       {"answer": "at 0.5% elongation", "evidence": evidence}) == []
    wrong = gates.check(["When should an 11-speed chain be replaced?"], source,
                        {"answer": "every 2,000 km", "evidence": evidence})
    assert any(r.startswith("validator grounding.answer:") for r in wrong)
    # instructions: the core query is grounded, the instructed text checked for debris/echo
    instructed = gates.check(["When should an 11-speed chain be replaced? {You can reword it"],
                             source, {"core_query": "When should an 11-speed chain be "
                                      "replaced?", "dimension": "keyword",
                                      "condition": "cassette", "gold_doc_id": "b3"})
    assert any(r.startswith("validator form.debris:") for r in instructed)
    # multicon: conditions naming the title are rejected
    titled = gates.check(["Find a guide: 1. chain wear of 11-speed chains."], source,
                         {"source_doc": "b3", "conditions": [DOCS[2].text],
                          "condition_phrases": ["chain wear of 11-speed chains"]})
    assert any(r.startswith("validator multicon.title:") for r in titled)
