"""Labeling configs, answer validation, items, sampling and settings (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.annotation.connection import load_settings
from irforge.annotation.errors import AnnotationError
from irforge.annotation.items import AnnotationItem, bench_items, item_key
from irforge.annotation.labeling import get_job, list_jobs, parse_config, validate_result
from irforge.annotation.push import predictions_for
from irforge.annotation.sampling import select
from irforge.annotation.status import progress
from irforge.core.errors import FormatError

from .helpers import choice, relevance_bench


@pytest.mark.parametrize("name", list_jobs())
def test_builtin_jobs_parse_and_map_every_choice(name: str) -> None:
    job = get_job(name)
    control = job.config.controls[job.label_control]
    assert set(job.label_values) == set(control.values)
    assert control.required and not control.multiple
    assert "<Rating" not in job.config.xml  # Rating cannot store 0


def test_scales_of_relevance_sts_and_logical() -> None:
    assert sorted(get_job("relevance").label_values.values()) == [0, 1, 2, 3]
    assert sorted(get_job("sts").label_values.values()) == [0, 1, 2, 3, 4, 5]
    logical = get_job("logical_structure")
    assert sorted(logical.label_values.values()) == [1, 2, 3, 4]
    assert logical.config.controls["verdict"].values == ("accept", "reject")
    assert {"query", "type_definition", "triples"} <= logical.config.variables
    assert get_job("relevance").choice_for(1.5) == "1"  # ties go to the lower label
    assert get_job("relevance").choice_for(2.6) == "3"


def test_validate_result_catches_what_the_server_accepts() -> None:
    config = get_job("logical_structure").config
    good = [choice("conformity", "query", "4"), choice("verdict", "query", "accept")]
    assert validate_result(good, config) == []
    problems = validate_result([choice("conformity", "query", "7")], config)
    assert any("'7'" in p for p in problems)
    assert any("verdict" in p and "no answer" in p for p in problems)
    double = [{"from_name": "conformity", "to_name": "query", "type": "choices",
               "value": {"choices": ["1", "2"]}}, choice("verdict", "query", "accept")]
    assert any("single choice" in p for p in validate_result(double, config))
    assert validate_result("nope", config) == ["result must be a list, got str"]


def test_bad_configs_and_unknown_jobs_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="not valid XML"):
        parse_config("<View><Text", "x.xml")
    with pytest.raises(FormatError, match="no Choices control"):
        parse_config('<View><Text name="t" value="$text"/></View>')
    with pytest.raises(AnnotationError, match="unknown labeling job"):
        get_job("vibes")
    config = tmp_path / "two.xml"
    config.write_text('<View><Text name="q" value="$query"/><Choices name="a" toName="q">'
                      '<Choice value="x"/></Choices><Choices name="b" toName="q">'
                      '<Choice value="1"/><Choice value="2"/></Choices></View>')
    with pytest.raises(AnnotationError, match="no Choices control named 'c'"):
        get_job("mine", config_file=config, label_control="c")
    assert get_job("mine", config_file=config, label_control="b").label_values == {
        "1": 1.0, "2": 2.0}


def test_items_carry_text_strata_and_stable_keys(tmp_path: Path) -> None:
    bench = relevance_bench(tmp_path, queries=4)
    items = bench_items(bench, get_job("relevance"), strata=("intent",))
    assert [item.key for item in items] == [item_key("relevance", f"q{i}", f"d{i}")
                                            for i in range(4)]
    assert item_key("relevance", "q0", "d0") == item_key("relevance", "q0", "d0")  # stable
    assert len({item.key for item in items}) == 4
    assert all(key.startswith("relevance:") and len(key) == len("relevance:") + 12
               for key in (item.key for item in items))
    first = items[0]
    assert first.data["query"] == "flood warning region 0"
    assert first.data["passage"].startswith("Doc 0\nPassage 0")
    assert first.data["context"] == (
        "intent QA: a user asks a question and wants passages that answer it directly\n"
        "how to grade: a match means the passage answers the query: 3 = Perfectly relevant; "
        "2 = Highly relevant; 1 = Related; 0 = Irrelevant")
    assert first.strata == {"intent": "QA"} and len(first.llm) == 3
    predictions = predictions_for(first, get_job("relevance"))
    assert [p["model_version"] for p in predictions][-1] == "ensemble"
    with pytest.raises(AnnotationError, match="no LLM judgment with task 'sts'"):
        bench_items(bench, get_job("sts"))


def _item(key: str, labels: dict[str, float], strata: dict[str, str],
          confidence: float | None = None) -> AnnotationItem:
    return AnnotationItem(key, key, key, labels, {}, confidence, strata)


def test_sampling_strategies_are_seeded_and_do_what_they_say() -> None:
    items = [_item(f"k{i}", {"a": i % 4, "b": i % 4}, {"intent": "rare" if i < 2 else "common"})
             for i in range(20)]
    items.append(_item("split", {"a": 0, "b": 3}, {"intent": "common"}))
    items.append(_item("wide", {"a": 1, "b": 3}, {"intent": "common"}))
    assert select(items, 5, "random", seed=1) == select(items, 5, "random", seed=1)
    assert select(items, 5, "random", seed=1) != select(items, 5, "random", seed=2)
    stratified = select(items, 4, "stratified", seed=0, by="intent")
    assert sum(item.strata["intent"] == "rare" for item in stratified) == 2
    by_label = select(items, 6, "stratified", seed=0, by="label")
    assert sum(item.ensemble > 0 for item in by_label) == 3
    assert [item.key for item in select(items, 2, "disagreement")] == ["split", "wide"]
    confident = [_item("sure", {"a": 3}, {}, 0.9), _item("unsure", {"a": 3}, {}, 0.2),
                 _item("edge", {"a": 0.5}, {})]
    assert [i.key for i in select(confident, 3, "low-confidence")] == ["unsure", "sure", "edge"]
    with pytest.raises(ValueError, match="unknown sampling strategy"):
        select(items, 2, "vibes")
    with pytest.raises(ValueError, match="needs a stratum key"):
        select(items, 2, "stratified")


def test_progress_counts_per_stratum() -> None:
    tasks = [{"data": {"strata": {"intent": "QA"}}, "total_annotations": 2,
              "cancelled_annotations": 0},
             {"data": {"strata": {"intent": "QA"}}, "total_annotations": 1,
              "cancelled_annotations": 1},
             {"data": {"strata": {"intent": "FC"}}, "annotations": [{"was_cancelled": False}]}]
    rows = {(r.stratum, r.value): r for r in progress(tasks)}
    assert (rows[("all", "all")].tasks, rows[("all", "all")].annotated) == (3, 2)
    assert rows[("intent", "QA")].share == 0.5 and rows[("intent", "QA")].annotations == 2
    assert rows[("tasks", "gold")].tasks == 0 and rows[("tasks", "real")].tasks == 3


def test_progress_names_the_gold_tasks_and_counts_them_once() -> None:
    tasks = [{"data": {"item_key": f"relevance:{n}", "strata": {"intent": "QA"}},
              "total_annotations": n % 2, "cancelled_annotations": 0} for n in range(6)]
    rows = progress(tasks, gold={"relevance:4", "relevance:5"})
    table = {(r.stratum, r.value): (r.tasks, r.annotated) for r in rows}
    assert [(r.stratum, r.value) for r in rows[:3]] == [("all", "all"), ("tasks", "real"),
                                                        ("tasks", "gold")]
    assert table[("all", "all")] == (6, 3)
    assert table[("tasks", "real")] == (4, 2) and table[("tasks", "gold")] == (2, 1)
    assert table[("intent", "QA")] == (4, 2)  # strata cover the real tasks


def test_settings_from_env_then_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    monkeypatch.delenv("IRFORGE_LABEL_STUDIO_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(AnnotationError, match="LABEL_STUDIO_URL"):
        load_settings()
    file = tmp_path / "ls.yaml"
    file.write_text("url: http://127.0.0.1:8080\napi_key: abc\n")
    settings = load_settings(config_file=file)
    assert settings.url == "http://127.0.0.1:8080" and settings.api_key == "abc"
    assert "abc" not in repr(settings)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "from-env")
    assert load_settings(config_file=file).api_key == "from-env"
    monkeypatch.delenv("LABEL_STUDIO_API_KEY")
    file.write_text("url: http://x\n")
    with pytest.raises(AnnotationError, match="no Label Studio token"):
        load_settings(config_file=file)


def test_cli_reports_server_down_without_traceback(tmp_path: Path, monkeypatch, capsys) -> None:
    import sys

    from irforge.cli.app import main

    relevance_bench(tmp_path, queries=2)
    before = (tmp_path / "judgments.jsonl").read_bytes()
    monkeypatch.setenv("LABEL_STUDIO_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "x" * 40)
    monkeypatch.setattr(sys, "argv", ["irforge", "annotate", "push", str(tmp_path)])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "no Label Studio answers at http://127.0.0.1:9" in err and "Traceback" not in err
    assert (tmp_path / "judgments.jsonl").read_bytes() == before
    assert not (tmp_path / "annotation").exists()


def test_answers_without_the_label_become_failures() -> None:
    from dataclasses import replace

    from irforge.annotation.pull import to_judgments

    job = get_job("logical_structure")
    optional = replace(job.config.controls["conformity"], required=False)
    relaxed = replace(job, config=replace(job.config, controls={**job.config.controls,
                                                                 "conformity": optional}))
    task = {"id": 5, "data": {"item_key": "k", "query_id": "q", "doc_id": "q"}, "annotations": [
        {"id": 1, "completed_by": 3, "result": [choice("verdict", "query", "accept")]},
        {"id": 2, "completed_by": 3, "was_cancelled": True, "result": []},
        {"id": 3, "completed_by": {"email": "x@example.com"},
         "result": [choice("conformity", "query", "2"), choice("verdict", "query", "accept")]}]}
    judgments, failures = to_judgments([task], relaxed, 1, {3: "three@example.com"})
    assert [f.reason for f in failures] == ["no answer in the label control 'conformity'"]
    assert [(j.label, j.annotator) for j in judgments] == [(2.0, "x@example.com")]
