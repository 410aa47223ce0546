"""The demo stage runs one structured call with the embedded model and records it."""

from __future__ import annotations

import json
from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.core.records import Doc
from irforge.demo import DemoContext
from irforge.demo.llm import stage_llm


def test_demo_stage_summarises_one_document_as_demo_grade(tmp_path: Path,
                                                          embedded_model_path: Path) -> None:
    Benchmark(tmp_path).write_corpus([Doc("d1", "Heavy rain flooded the river valley and "
                                                "the town closed two bridges.", "Flooding")])
    summary = stage_llm(DemoContext(out=tmp_path, model=None))
    assert summary.startswith("d1: ") and "DEMO GRADE" in summary
    written = json.loads((tmp_path / "demo" / "llm_keywords.json").read_text())
    assert written["doc_id"] == "d1" and written["demo_grade"] is True
    assert written["status"] in {"ok", "invalid", "truncated"}
    step = Benchmark(tmp_path).manifest()["steps"]["demo.llm"]
    assert step["demo_grade"] is True and step["model"].startswith("embedded:")
    assert step["prompts"]["demo.keywords"] == written["prompt_hash"]


def test_demo_takes_an_api_base_and_refuses_a_bad_one_before_any_work(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from irforge.cli.app import build_app

    done = CliRunner().invoke(build_app(), ["demo", "--out", str(tmp_path / "demo"), "--model",
                                            "openai/scripted", "--api-base", "ftp://example"])
    assert done.exception.exit_code == 2 and "--api-base" in str(done.exception)
    assert not (tmp_path / "demo").exists()
