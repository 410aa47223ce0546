"""``irforge check`` on folders of bad and good queries: exit codes and JSON problem objects."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from irforge.check.folder import check_benchmark
from irforge.cli.app import build_app

DOCS = [
    {"_id": "p1", "title": "Tyre pressure", "text": "Road tyres 25 mm wide run at 80 to 100 "
     "pounds per square inch (psi). Wet roads call for 10 psi less."},
    {"_id": "p2", "title": "Chain wear", "text": "Replace an 11-speed chain at 0.5% "
     "elongation; a worn chain wears the cassette and the chainrings."},
    {"_id": "p3", "title": "Disc brake pads", "text": "Replace disc brake pads when the "
     "friction material is thinner than 1.5 mm. Sintered pads last longer in mud."},
    {"_id": "p4", "title": "Headset play", "text": "Knocking under braking points to a loose "
     "headset; tighten the top cap, then the stem bolts to 5 Nm."},
]
GOOD = [("g1", "What psi suits 25 mm road tyres?", "p1"),
        ("g2", "When should an 11-speed chain be replaced?", "p2"),
        ("g3", "Are sintered brake pads better for muddy rides?", "p3"),
        ("g4", "what causes headset knocking under braking", "p4")]
BAD = [("b1", "How many times a loan can be renewed.", "p1"),  # prompt echo
       ("b2", "Who designed the Arden Bridge?", "p2"),  # logical demonstration
       ("b3", "Do 25 mm tyres run at 80 to 100 grams?", "p1"),  # wrong unit
       ("b4", '"]["', "p3"),  # JSON debris
       ("b5", "How tight should the top cap of a headset be?", "p2"),  # qrel on another passage
       ("b6", "Does Campagnolo make 11-speed chains?", "p2"),  # invented name
       ("b7", "Replace disc brake pads when the friction material is thinner than 1.5 mm",
        "p3")]  # copied sentence


def write(root: Path, queries: list[tuple[str, str, str]]) -> Path:
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t, _ in queries))
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, _, d in queries))
    return root


def test_check_rejects_every_bad_query_and_keeps_every_good_one(tmp_path: Path):
    report = check_benchmark(write(tmp_path / "b", GOOD + BAD))
    assert report.audit.invalid == {q for q, _, _ in BAD}
    assert report.counts["invalid_queries"] == len(BAD)
    assert set(report.audit.ranks) >= {q for q, _, _ in GOOD}
    assert all(report.audit.ranks[q] == 1 for q, _, _ in GOOD)


def test_check_json_reports_problem_objects_and_exits_non_zero(tmp_path: Path):
    root = write(tmp_path / "b", GOOD + BAD)
    result = CliRunner().invoke(build_app(), ["check", str(root), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["ok"] is False and sorted(data["invalid_queries"]) == sorted(q for q, _, _ in BAD)
    problems = data["problems"]
    assert all(set(p) == {"file", "line", "field", "query_id", "validator", "detail", "fix"}
               for p in problems)
    by_query = {p["query_id"]: p for p in problems if p["validator"] == "echo"}
    assert by_query["b1"]["file"].endswith("queries.jsonl") and by_query["b1"]["line"] == 5
    assert by_query["b1"]["field"] == "text" and "fc_needs" in by_query["b1"]["detail"]
    assert {p["validator"] for p in problems if p["query_id"] == "b3"} == {"grounding.query"}
    assert data["target_k"] == 3 and data["target_ranks"]["g1"] == 1


def test_check_passes_good_queries_and_names_the_target_depth(tmp_path: Path):
    root = write(tmp_path / "g", GOOD)
    result = CliRunner().invoke(build_app(), ["check", str(root)])
    assert result.exit_code == 0, result.output
    assert "target depth top 3 (scaled to the corpus)" in result.output
    relaxed = CliRunner().invoke(build_app(), ["check", str(root), "--target-k", "2"])
    assert relaxed.exit_code == 0 and "set by --target-k" in relaxed.output


def test_target_not_retrievable_is_reported_and_k_can_be_relaxed(tmp_path: Path):
    docs = [{"_id": f"d{i}", "text": f"Spoke tension note {i}: tighten nipples evenly."}
            for i in range(30)]
    docs.append({"_id": "t", "text": "Tyre levers are made of nylon; spoke tension matters."})
    root = tmp_path / "t"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "spoke tension"}) + "\n")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq\tt\t1\n")
    strict = check_benchmark(root)
    assert strict.audit.by_validator["target"] == 1 and strict.audit.target_k == 6
    assert any("target not retrievable" in p.message for p in strict.problems)
    assert check_benchmark(root, target_k=31).ok
