"""Qrels for the og / instructed / reversed modes, the folder layout, and SICR/WISE on it.

The SICR and WISE values below are worked out by hand from the paper's equations 1-6
(InfoSearch 2.3); a small reference implementation written from the same equations is fed the
built benchmark's qrels and fixed runs, and must give the hand values.
"""

from __future__ import annotations

import json
import math

import pytest

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Run
from irforge.generators.instructions.assemble import assemble, assembled_records, read_modes
from irforge.generators.instructions.units import Group, Member, Unit, unit_id
from irforge.steps.records import write_records


def _group() -> Group:
    members = (Member(Doc("d1", "Progesterone helps acne."), "progesterone"),
               Member(Doc("d2", "Mint helps acne."), "mint"),
               Member(Doc("d3", "Chamomile helps acne."), "chamomile", origin="given"))
    # the core query is not the instructions.keyword template's example ("What helps for
    # acne?"): a query that is a whole prompt example is an echo (irforge check rejects it)
    return Group("q1", "Which remedies help with acne?", "keyword", members,
                 hard_negatives=(Doc("q1--hardneg-1", "Acne forums are popular."),))


def _group_b() -> Group:
    members = (Member(Doc("e1", "Expert text on how flood warnings work."), "expert"),
               Member(Doc("e1--audience-layman", "Plain text on how flood warnings work."),
                      "layman",
                      origin="rewritten"))
    return Group("q2", "How do flood warnings work?", "audience", members)


def _units() -> list[Unit]:
    out = []
    for member in _group().members:
        out.append(Unit(unit_id("q1", "keyword", member.condition), "q1", "keyword",
                        member.condition, member.doc.doc_id,
                        f"What helps against acne? Focus on {member.condition}.",
                        f"What helps for acne? Do not mention {member.condition}."))
    for member in _group_b().members:
        out.append(Unit(unit_id("q2", "audience", member.condition), "q2", "audience",
                        member.condition, member.doc.doc_id,
                        f"How do flood warnings work? Write for a {member.condition}.",
                        f"How do flood warnings work? Not for a {member.condition}."))
    return out


@pytest.fixture()
def bench(tmp_path):
    assembled = assemble([_group(), _group_b()], _units(),
                         distractors=[Doc("x1", "Unrelated distractor.")])
    bench = Benchmark(tmp_path / "bench")
    write_records(bench, assembled_records(assembled))
    return bench


def test_three_modes_qrels(bench):
    og, changed, reversed_ = (bench.qrels_dict(m) for m in ("og", "changed", "reversed"))
    unit = "q1-keyword-mint"
    assert og[unit] == {"d1": 1, "d2": 1, "d3": 1, "q1--hardneg-1": 0}
    assert changed[unit] == {"d1": 0, "d2": 1, "d3": 0, "q1--hardneg-1": 0}
    assert reversed_[unit] == {"d1": 1, "d2": 0, "d3": 1, "q1--hardneg-1": 0}
    assert changed["q2-audience-layman"] == {"e1": 0, "e1--audience-layman": 1}
    assert reversed_["q2-audience-layman"] == {"e1": 1, "e1--audience-layman": 0}
    assert bench.qrels_dict("test") == og
    assert set(og) == set(changed) == set(reversed_) == {q.query_id for q in bench.queries()}


def test_folder_is_a_valid_beir_benchmark_with_mode_queries(bench):
    report = check_benchmark(bench.root)
    assert report.ok, report.problems
    assert report.counts["docs"] == 7 and report.counts["queries"] == 5
    query = next(q for q in bench.queries() if q.query_id == "q1-keyword-chamomile")
    assert query.text == "Which remedies help with acne?"
    assert query.metadata["instructed"] == "What helps against acne? Focus on chamomile."
    assert query.metadata["reversed"] == "What helps for acne? Do not mention chamomile."
    assert query.metadata["gold_doc_id"] == "d3"
    assert query.metadata["positive_doc_ids"] == ["d1", "d2", "d3"]
    changed = [json.loads(line) for line in
               (bench.root / "instructions" / "queries_changed.jsonl").read_text().splitlines()]
    assert changed[2] == {"_id": "q1-keyword-chamomile",
                          "text": "What helps against acne? Focus on chamomile."}
    modes = read_modes(bench)
    assert modes["reversed"][0][0].text == "What helps for acne? Do not mention progesterone."
    groups = (bench.root / "instructions" / "groups.jsonl").read_text().splitlines()
    assert json.loads(groups[1])["members"][1]["origin"] == "rewritten"


def test_unit_with_a_single_positive_is_refused():
    lonely = Group("q9", "q", "audience", (Member(Doc("z", "t"), "expert"),))
    with pytest.raises(ValueError, match="one positive"):
        assemble([lonely], [Unit("u", "q9", "audience", "expert", "z", "a. b.", "c. d.")])


# --- a reference implementation of the paper's equations, used only by this test -------------

def _rank_and_score(run: Run, query_id: str, doc_id: str) -> tuple[int, float]:
    ranked = run.ranked(query_id)
    for position, (candidate, score) in enumerate(ranked, start=1):
        if candidate == doc_id:
            return position, score
    return len(ranked) + 1, -math.inf


def _sicr_wise(qrels: dict, runs: dict, k: int = 20) -> tuple[float, float]:
    """SICR (eq. 1-2) and WISE (eq. 3-6) over the units of the qrels."""
    compliant, wise = [], []
    for query_id in qrels["changed"]:
        gold = next(d for d, g in qrels["changed"][query_id].items() if g > 0)
        assert qrels["reversed"][query_id][gold] == 0
        n = sum(1 for g in qrels["og"][query_id].values() if g > 0)
        (r_ori, s_ori), (r_ins, s_ins), (r_rev, s_rev) = (
            _rank_and_score(runs[m], query_id, gold) for m in ("og", "changed", "reversed"))
        compliant.append(int(r_ins < r_ori and s_ins > s_ori and r_ori < r_rev and s_ori > s_rev))
        if r_ins <= r_ori < r_rev:
            if r_ori <= n and r_ins == 1:
                value = 1.0
            elif r_ori <= k:
                value = (1 - math.sqrt(r_ori - r_ins) / k) / math.sqrt(r_ins)
            else:
                value = 0.01
        elif r_rev < r_ori < r_ins:
            value = -1.0
        elif r_ori <= r_ins:
            value = (r_ori - r_ins) / r_ins
        else:
            value = (r_rev - r_ori) / r_ori
        wise.append(value)
    return sum(compliant) / len(compliant), sum(wise) / len(wise)


def _run(name: str, rankings: dict[str, list[tuple[str, float]]]) -> Run:
    return Run(name, {q: dict(docs) for q, docs in rankings.items()})


def _fixed_runs() -> dict[str, Run]:
    hn = "q1--hardneg-1"
    og = _run("og", {
        "q1-keyword-progesterone": [("d2", 0.9), ("d1", 0.8), ("d3", 0.7), (hn, 0.1)],
        "q1-keyword-mint": [("d1", 0.9), ("d3", 0.8), ("d2", 0.7), (hn, 0.1)],
        "q1-keyword-chamomile": [("d3", 0.9), ("d1", 0.8), ("d2", 0.7)],
        "q2-audience-expert": [("e1", 0.6), ("e1--audience-layman", 0.5)],
        "q2-audience-layman": [("e1", 0.6), ("e1--audience-layman", 0.5)],
    })
    changed = _run("changed", {
        "q1-keyword-progesterone": [("d1", 0.9), ("d2", 0.5), ("d3", 0.4)],
        "q1-keyword-mint": [("d1", 0.8), ("d2", 0.75), ("d3", 0.7)],
        "q1-keyword-chamomile": [("d3", 0.95), ("d1", 0.5)],
        "q2-audience-expert": [("e1--audience-layman", 0.7), ("e1", 0.5)],
        "q2-audience-layman": [("e1", 0.9), ("x1", 0.4), ("e1--audience-layman", 0.3)],
    })
    reversed_ = _run("reversed", {
        "q1-keyword-progesterone": [("d2", 0.9), ("d3", 0.8), ("d1", 0.5)],
        "q1-keyword-mint": [("d1", 0.9), ("d3", 0.8), (hn, 0.3), ("d2", 0.1)],
        "q1-keyword-chamomile": [("d3", 0.99), ("d1", 0.5)],
        "q2-audience-expert": [("e1--audience-layman", 0.7), ("e1", 0.4)],
        "q2-audience-layman": [("e1--audience-layman", 0.9), ("e1", 0.2)],
    })
    return {"og": og, "changed": changed, "reversed": reversed_}


HAND_SICR = 0.4
HAND_WISE = (1 + 0.95 / math.sqrt(2) + 0 - 0.5 - 1) / 5


def test_sicr_and_wise_on_the_built_benchmark_match_hand_values(bench):
    """Five units; gold ranks (ori, ins, rev) and hand-computed per-unit values:

    q1-keyword-progesterone  gold d1: ori 2 (0.8), ins 1 (0.9), rev 3 (0.5)
        SICR 1; WISE: R_ori=2 <= N=3 and R_ins=1 -> 1
    q1-keyword-mint          gold d2: ori 3 (0.7), ins 2 (0.75), rev 4 (0.1)
        SICR 1; WISE: (1 - sqrt(1)/20)/sqrt(2) = 0.95/1.41421 = 0.671751
    q1-keyword-chamomile     gold d3: ori 1 (0.9), ins 1 (0.95), rev 1 (0.99)
        SICR 0 (R_ins not < R_ori); WISE: R_ori <= R_ins -> (1-1)/1 = 0
    q2-audience-expert       gold e1: ori 1 (0.6), ins 2 (0.5), rev 2 (0.4)
        SICR 0; WISE: R_ori <= R_ins -> (1-2)/2 = -0.5
    q2-audience-layman       gold e1--audience-layman: ori 2 (0.5), ins 3 (0.3), rev 1 (0.9)
        SICR 0; WISE: R_rev < R_ori < R_ins -> -1
    SICR = 2/5 = 0.4; WISE = (1 + 0.671751 + 0 - 0.5 - 1)/5 = 0.0343503
    """
    qrels = {mode: bench.qrels_dict(mode) for mode in ("og", "changed", "reversed")}
    sicr, wise = _sicr_wise(qrels, _fixed_runs())
    assert sicr == pytest.approx(HAND_SICR)
    assert wise == pytest.approx(HAND_WISE)
    assert wise == pytest.approx(0.0343503, abs=1e-6)


def test_eval_metrics_give_the_hand_values_on_the_built_benchmark(bench):
    """Cross-check with irforge.eval's SICR/WISE (imported directly: a missing module fails)."""
    from irforge.eval.metrics import infosearch as metrics

    runs = {mode: {q: dict(d) for q, d in run.scores.items()}
            for mode, run in _fixed_runs().items()}
    args = (runs["og"], runs["changed"], runs["reversed"], bench.qrels_dict("og"),
            bench.qrels_dict("changed"))
    sicr, wise = metrics.sicr(*args), metrics.wise(*args)
    assert len(sicr) == len(wise) == 5
    assert sum(sicr.values()) / 5 == pytest.approx(HAND_SICR)
    assert sum(wise.values()) / 5 == pytest.approx(HAND_WISE)
