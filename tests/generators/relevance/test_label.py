"""label_benchmark orchestration with a scripted engine double: judgments, qrels, flags."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError
from irforge.core.jsonl import iter_jsonl
from irforge.core.records import Doc, Query
from irforge.generators.intents import load_intents
from irforge.generators.relevance import LabelSettings, label_benchmark
from irforge.steps.runner import BuildRunner
from tests.generators.fake_engine import FakeEngine


def _bench(tmp_path: Path) -> Benchmark:
    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus([
        Doc("d1", "Flood warnings are issued at 3.2 metres."),
        Doc("d2", "Shelters open at a hurricane watch."),
        Doc("gen_q1", "GOOD answer about flood warnings.", metadata={"generated": True}),
        Doc("gen_q2", "WEAK answer about something else.", metadata={"generated": True}),
        Doc("gen_q3", "Sentences that mean the same.", metadata={"generated": True}),
    ])
    bench.write_queries([
        Query("q1", "When are flood warnings issued?",
              {"intent": "QA", "positive_doc_id": "gen_q1"}),
        Query("q2", "Claim: shelters open early.", {"intent": "FC", "positive_doc_id": "gen_q2"}),
        Query("q3", "Two sentences, same meaning.", {"intent": "STS",
                                                     "positive_doc_id": "gen_q3"}),
        Query("q4", "A query without an intent.", {}),
    ])
    return bench


def _score(item: Any, good: int, weak: int, other: int) -> int:
    if item["passage"].startswith("GOOD"):
        return good
    return weak if item["passage"].startswith("WEAK") else other


ANSWERS = {
    "relevance.zero_shot": lambda i: {"final_score": _score(i, 3, 1, 0)},
    "relevance.similarity_zero_shot": lambda i: {"final_score": 5},
    "relevance.cot_presence": lambda i: {"has_answer": "Yes" if _score(i, 1, 0, 0) else "No"},
    "relevance.criterion": lambda i: {"criterion_score": _score(i, 3, 1, 0)},
    # a rater that ignores phase one: 3 whatever it was told; only allowed after "Yes"
    "relevance.cot_final": lambda i: {"relevance_score": 3 if i["has_answer"] == "Yes" or
                                      i["passage"].startswith("WEAK") else 0},
    "relevance.multi_dim_final": lambda i: {"final_relevance_score": _score(i, 3, 1, 0)},
}


def test_labels_every_strategy_ensembles_and_flags(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("q1\td2\nq1\tgen_q1\n", encoding="utf-8")
    engine = FakeEngine(ANSWERS)
    report = label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [pairs],
                             load_intents(), LabelSettings())
    assert report.counts["pairs"] == 4  # q1-d2, q1-gen_q1 (listed once), q2-gen_q2, q3-gen_q3
    judgments = list(bench.judgments())
    strategies = sorted((j.query_id, j.doc_id, j.metadata["strategy"]) for j in judgments)
    assert ("q3", "gen_q3", "cot") not in strategies  # STS: zero-shot only
    assert ("q3", "gen_q3", "zero_shot") in strategies
    assert ("q2", "gen_q2", "cot") not in strategies  # phase rule broke: no label, a failure
    cot = [j for j in judgments if j.metadata["strategy"] == "cot"]
    for judgment in cot:
        phases = judgment.metadata["phases"]
        assert judgment.label in ((2, 3) if phases["has_answer"] == "Yes" else (0, 1))
        raws = json.loads(judgment.raw_output)
        assert {"presence", "criterion:Exactness", "criterion:Coverage", "final"} <= set(raws)
    failures = list(bench.failures())
    [phase_failure] = [f for f in failures if f.step == "relevance.cot"]
    assert phase_failure.item_id == "q2::gen_q2" and phase_failure.reason.startswith("final:")
    assert phase_failure.raw_output and '"relevance_score": 3' in phase_failure.raw_output
    qrels = bench.qrels_dict()
    assert qrels == {"q1": {"d2": 0, "gen_q1": 3}, "q2": {"gen_q2": 1}, "q3": {"gen_q3": 5}}
    flagged = [row for _, row in iter_jsonl(bench.root / "relevance" / "flagged.jsonl")]
    assert [(row["query_id"], row["doc_id"]) for row in flagged] == [("q2", "gen_q2")]
    assert report.counts["flagged"] == 1 and report.counts["positives_checked"] == 3
    # criterion calls are shared by cot and multi_dim: the engine sees each prompt, the cache
    # would answer the repeat; the estimate counts it once
    assert report.estimate["requests"] > 0 and report.estimate["by_template"]


def test_rerun_appends_no_duplicate_judgments(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    first = label_benchmark(BuildRunner.open(FakeEngine(ANSWERS), bench.root, "relevance"), [],
                            load_intents(), LabelSettings())
    again = label_benchmark(BuildRunner.open(FakeEngine(ANSWERS), bench.root, "relevance"), [],
                            load_intents(), LabelSettings())
    assert first.counts["judgments_written"] > 0 and again.counts["judgments_written"] == 0
    assert again.counts["judgments_reused"] == first.counts["judgments_written"]
    assert len(list(bench.judgments())) == first.counts["judgments_written"]


def test_mode_ensemble_and_binary_qrels(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    settings = LabelSettings(strategies=("zero_shot", "multi_dim"), ensemble="mode",
                             binarization=">=2", split="binary")
    label_benchmark(BuildRunner.open(FakeEngine(ANSWERS), bench.root, "relevance"), [],
                    load_intents(), settings)
    assert bench.qrels_dict("binary") == {"q1": {"gen_q1": 1}, "q2": {"gen_q2": 0},
                                          "q3": {"gen_q3": 1}}
    cot_only = LabelSettings(strategies=("cot",), split="cot")
    label_benchmark(BuildRunner.open(FakeEngine(ANSWERS), bench.root, "relevance"), [],
                    load_intents(), cot_only)
    [sts] = [f for f in bench.failures() if f.item_id == "q3::gen_q3"]
    # an earlier run's ensemble rows stay for pairs this run could not label
    rows = {(r["query_id"], r["doc_id"]): r
            for _, r in iter_jsonl(bench.root / "relevance" / "ensemble.jsonl")}
    assert set(rows) == {("q1", "gen_q1"), ("q2", "gen_q2"), ("q3", "gen_q3")}
    assert rows[("q3", "gen_q3")]["labels"] == {"zero_shot": 5}
    assert "none of the chosen strategies applies to intent 'STS'" in sts.reason


def test_dry_run_calls_nothing_and_unknown_ids_name_the_line(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    engine = FakeEngine(ANSWERS)
    report = label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [], load_intents(),
                             LabelSettings(), dry_run=True)
    assert engine.calls == [] and not bench.judgments_path.exists()
    # QA and FC pairs: zero_shot 1 + presence 1 + cot final 1 + multi_dim final 1 + 4 criteria
    # (2 shared with cot); STS: zero_shot only
    assert report.estimate["requests"] == 2 * 8 + 1
    bad = tmp_path / "pairs.jsonl"
    bad.write_text('{"query_id": "q1", "doc_id": "d1"}\n{"query_id": "q1", "doc_id": "zz"}\n',
                   encoding="utf-8")
    with pytest.raises(FormatError) as info:
        label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [bad], load_intents(),
                        LabelSettings())
    assert (info.value.problem.line, info.value.problem.field) == (2, "doc_id")


def test_query_without_intent_needs_a_default(tmp_path: Path) -> None:
    bench = _bench(tmp_path)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"query_id": "q4", "doc_id": "d1"}\n', encoding="utf-8")
    with pytest.raises(FormatError, match="pass --intent"):
        label_benchmark(BuildRunner.open(FakeEngine(ANSWERS), bench.root, "relevance"), [pairs],
                        load_intents(), LabelSettings())
    settings = LabelSettings(default_intent="QA", include_positives=False)
    report = label_benchmark(BuildRunner.open(FakeEngine(ANSWERS), bench.root, "relevance"),
                             [pairs], load_intents(), settings)
    assert report.counts["pairs"] == 1 and bench.qrels_dict() == {"q4": {"d1": 0}}


def _common_prefix(a: str, b: str) -> str:
    size = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))
    return a[:size]


def test_criterion_calls_of_a_pair_come_together_and_share_its_text_as_prefix(
        tmp_path: Path) -> None:
    """A local model reuses the previous call's common token prefix: the criterion calls of one
    pair are sent one after another and their prompts differ only after the query and passage."""
    from irforge.prompts import get_template

    bench = _bench(tmp_path)
    engine = FakeEngine(ANSWERS)
    batches: list[list[dict[str, Any]]] = []  # the items of each criterion request batch
    run = engine.run

    def recording(items: Any, template_name: str, *args: Any, **kwargs: Any) -> Any:
        if template_name == "relevance.criterion":
            batches.append([dict(item) for item in items])
        return run(items, template_name, *args, **kwargs)

    engine.run = recording  # type: ignore[method-assign]
    label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [], load_intents(),
                    LabelSettings())
    criteria = [item for batch in batches for item in batch]
    assert len(criteria) >= 4
    for batch in batches:
        pairs = [(item["query"], item["passage"]) for item in batch]
        assert len(set(pairs)) < len(pairs)
        runs = [pairs[0], *(after for before, after in pairwise(pairs) if before != after)]
        assert len(runs) == len(set(pairs))  # each pair's criteria are consecutive
    template = get_template("relevance.criterion")
    for before, after in pairwise(criteria):  # consecutive requests
        if (before["query"], before["passage"]) != (after["query"], after["passage"]):
            continue
        first, second = (template.render(**item) for item in (before, after))
        assert first[0] == second[0]  # the same system message
        shared = _common_prefix(first[-1]["content"], second[-1]["content"])
        assert before["query"] in shared and before["passage"] in shared
