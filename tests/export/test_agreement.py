"""Per-tool scores of one exported run (irforge.export.agreement): every tool reads the files
itself, the comparison is per query and mean, and a gap or a missing value is reported."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from irforge.eval.metrics import parse_metric
from irforge.export.agreement import (
    DEFAULT_METRICS,
    IR_MEASURES_NAMES,
    RANX_NAMES,
    TOOLS,
    compare_run,
    spelled,
)

QRELS = """q1 0 a 2
q1 0 b 0
q1 0 c 1
q2 0 c 0
q2 0 d 0
q3 0 a 1
q4 0 e 1
"""
# q1 and q2 retrieve fewer than 10 documents (judged@10 divides by the run's length), q2 has
# no relevant document, q3 is judged but not in the run, q9 is in the run but not judged
RUN = """q1 Q0 b 1 3.0 t
q1 Q0 a 2 2.5 t
q1 Q0 x 3 1.0 t
q1 Q0 c 4 0.5 t
q2 Q0 c 1 1.0 t
q2 Q0 a 2 0.5 t
q4 Q0 z 1 0.9 t
q4 Q0 e 2 0.8 t
q9 Q0 a 1 1.0 t
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("agreement")
    (root / "test.qrels").write_text(QRELS, encoding="utf-8")
    (root / "r.trec").write_text(RUN, encoding="utf-8")
    return root / "test.qrels", root / "r.trec"


def test_every_tool_scores_the_queries_both_files_hold_alike(files: tuple[Path, Path]) -> None:
    agreement = compare_run(*files)
    assert agreement.queries == ("q1", "q2", "q4") and agreement.unlisted == ("q3",)
    assert set(agreement.per_query) == set(TOOLS) == {"irforge", "ranx", "pytrec_eval",
                                                      "ir_measures"}
    # judged@10: only irforge and ir_measures compute it; ranx and trec_eval have no such measure
    assert agreement.tools_of("judged@10") == ["irforge", "ir_measures"]
    assert agreement.tools_of("map") == list(TOOLS)
    assert agreement.per_query["irforge"]["q1"]["judged@10"] == 0.75  # 3 of 4 retrieved
    assert agreement.per_query["ranx"]["q1"]["map"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert agreement.first_disagreement(1e-9) is None
    means = agreement.means()
    assert means["ranx"]["recip_rank"] == pytest.approx((1 / 2 + 0 + 1 / 2) / 3)
    assert len(agreement.differences()) == 5 * 6 + 1  # 6 pairs per trec measure, 1 for judged


def test_a_changed_value_and_a_missing_query_are_disagreements(files: tuple[Path, Path]) -> None:
    agreement = compare_run(*files)
    table = {q: dict(v) for q, v in agreement.per_query["ranx"].items()}
    table["q4"]["map"] += 1e-6
    changed = dataclasses.replace(agreement, per_query={**agreement.per_query, "ranx": table})
    first = changed.first_disagreement(1e-9)
    assert first is not None and first.metric == "map" and first.query == "q4"
    assert first.tools == ("irforge", "ranx") and first.value == pytest.approx(1e-6)
    assert "map: irforge and ranx differ by 1e-06 on query 'q4'" in first.describe()
    assert changed.first_disagreement(1e-5) is None
    gone = {q: v for q, v in agreement.per_query["ir_measures"].items() if q != "q2"}
    missing = dataclasses.replace(agreement, per_query={**agreement.per_query,
                                                        "ir_measures": gone})
    first = missing.first_disagreement(1e-9)
    assert first is not None and first.query == "q2" and math.isinf(first.value)
    assert "ir_measures no value" in first.describe()


def test_ties_left_in_the_file_make_ranx_and_trec_eval_disagree(tmp_path: Path) -> None:
    qrels = tmp_path / "test.qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n", encoding="utf-8")
    run = tmp_path / "tied.trec"
    run.write_text("q1 Q0 a 1 0.0 t\nq1 Q0 b 2 0.0 t\n", encoding="utf-8")
    first = compare_run(qrels, run, ["map"]).first_disagreement(1e-9)
    # trec_eval (and irforge) put b above a (doc id descending); ranx keeps a first
    assert first is not None and "ranx" in first.tools and first.value == pytest.approx(0.5)


def test_tool_spellings_cover_the_default_measures() -> None:
    for name in DEFAULT_METRICS:
        measure = parse_metric(name)
        assert spelled(measure, IR_MEASURES_NAMES), name
        if measure.name != "judged":
            assert spelled(measure, RANX_NAMES) and measure.trec_name, name
    assert spelled(parse_metric("recall@100"), RANX_NAMES) == "recall@100"
    assert spelled(parse_metric("P@5"), IR_MEASURES_NAMES) == "P@5"
    assert spelled(parse_metric("judged@10"), RANX_NAMES) is None
