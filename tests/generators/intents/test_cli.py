"""The two verbs through the real CLI: dry runs send nothing, bad input exits 2 with a fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core import beir
from irforge.core.records import Doc, Query

ROOT = Path(__file__).resolve().parents[3]


def _irforge(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "irforge", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_bad_input_exits_2_naming_the_fix(tmp_path: Path) -> None:
    beir.write_corpus(tmp_path / "corpus.jsonl", [Doc("d1", "a flood and a flood")])
    unknown = _irforge("build", "intents", "bench", "--corpus", "corpus.jsonl",
                       "--intents", "QA,Nope", cwd=tmp_path)
    assert unknown.returncode == 2
    assert "unknown intent(s) ['Nope']" in unknown.stderr and "--intents-file" in unknown.stderr
    no_bench = _irforge("label", "bench", cwd=tmp_path)
    assert no_bench.returncode == 2 and "bench/queries.jsonl: file not found" in no_bench.stderr
    beir.write_queries(tmp_path / "bench" / "queries.jsonl", [Query("q1", "q", {})])
    beir.write_corpus(tmp_path / "bench" / "corpus.jsonl", [Doc("d1", "a flood")])
    missing = _irforge("label", "bench", "--pairs", "nowhere.jsonl", cwd=tmp_path)
    assert missing.returncode == 2 and "nowhere.jsonl: file not found" in missing.stderr
    bad_tax = tmp_path / "tax.yaml"
    bad_tax.write_text("categories: []\n", encoding="utf-8")
    empty = _irforge("build", "intents", "bench", "--corpus", "corpus.jsonl", "--taxonomy",
                     "tax.yaml", cwd=tmp_path)
    assert empty.returncode == 2 and "tax.yaml" in empty.stderr and "categories" in empty.stderr


def test_dry_runs_print_estimates_and_write_nothing(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    beir.write_corpus(bench / "corpus.jsonl",
                      [Doc("d1", "A flood warning: the flood gauge reads 3 m. The district "
                           "office sends the warning to every household on the river bank. "
                           "Sirens sound when the gauge passes four metres.")])
    beir.write_queries(bench / "queries.jsonl", [Query("q1", "flood warning level?",
                                                       {"intent": "QA"})])
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("q1\td1\n", encoding="utf-8")
    runner, app = CliRunner(), build_app()
    cache = str(tmp_path / "cache.sqlite")
    built = runner.invoke(app, ["build", "intents", str(bench), "--intents", "QA,STS",
                                "--taxonomy", "disastir",
                                "--per-task", "2", "--dry-run", "--cache", cache,
                                "--model", "openai/gpt-4o-mini"])
    assert built.exit_code == 0, built.output
    # 2 intents x 8 DisastIR categories, only MH has a passage: 2 tasks x 2 queries x 2 stages
    assert "estimate: 8 requests" in built.output and "priced" in built.output
    # three strategies: 8 requests (the verb's default, like the recipe's, is zero_shot: 1)
    three = ["--strategies", "zero_shot,cot,multi_dim"]
    labeled = runner.invoke(app, ["label", str(bench), "--pairs", str(pairs), "--dry-run",
                                  *three, "--cache", cache, "--model", "openai/gpt-4o-mini"])
    assert labeled.exit_code == 0, labeled.output
    assert "estimate for 1 pairs: 8 requests (0 cached)" in labeled.output
    one = runner.invoke(app, ["label", str(bench), "--pairs", str(pairs), "--dry-run",
                              "--cache", cache, "--model", "openai/gpt-4o-mini"])
    assert "estimate for 1 pairs: 1 requests (0 cached)" in one.output, one.output
    as_json = ["--dry-run", "--json", "--cache", cache, "--model", "openai/gpt-4o-mini"]
    built_json = runner.invoke(app, ["build", "intents", str(bench), "--intents", "QA",
                                     "--per-task", "2", *as_json])
    assert built_json.exit_code == 0, built_json.output
    # 2 queries x 2 stages, and the taxonomy request (derived: gpt-4o-mini names them)
    assert json.loads(built_json.stdout)["estimate"]["requests"] == 5
    labeled_json = runner.invoke(app, ["label", str(bench), "--pairs", str(pairs), *three,
                                       *as_json])
    assert labeled_json.exit_code == 0, labeled_json.output
    assert json.loads(labeled_json.stdout)["estimate"]["requests"] == 8
    assert sorted(p.name for p in bench.iterdir()) == ["corpus.jsonl", "queries.jsonl"]
