"""``irforge run`` end to end through the real CLI and HTTP against the scripted server, on a
corpus far from the papers' domains (bread baking, plain .txt files): corpus -> intents (derived
taxonomy) -> pool -> labels -> eval -> report. Good answers are accepted and scored; answers
that copy their seed passage are rejected by the gates and the run exits non-zero, with every
rejected item and its reason in failures.jsonl."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from irforge.testing.scripted import ScriptedServer
from tests.generators.intents.test_scenario import BREAD, _script

ROOT = Path(__file__).resolve().parents[2]


def _recipe(tmp_path: Path, url: str) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for key, title, text, _, _ in BREAD:
        (docs / f"{key}.txt").write_text(f"{title}\n\n{text}\n", encoding="utf-8")
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(f"""corpus: {{input: docs, passage_dedup: false}}
model: openai/scripted
api_base: {url}
methods:
  intents: {{intents: [QA], per_task: 1}}
pool: {{retrievers: [bm25], k: 3}}
label: {{strategies: [zero_shot]}}
eval: {{retrievers: [bm25], metrics: [ndcg@10]}}
""", encoding="utf-8")
    return recipe


def _run(tmp_path: Path, recipe: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "irforge", "run", str(tmp_path / "bench"),
                           "--recipe", str(recipe)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)


def test_good_answers_run_every_stage_and_report(tmp_path: Path) -> None:
    with ScriptedServer(_script(good=True)) as server:
        recipe = _recipe(tmp_path, server.url)
        done = _run(tmp_path, recipe)
        assert done.returncode == 0, done.stdout + done.stderr
        requests = len(server.log)
        again = _run(tmp_path, tmp_path / "bench" / "recipe.yaml")  # the resolved recipe
        assert again.returncode == 0, again.stdout + again.stderr
        assert len(server.log) == requests  # resumed: every stage done, no call repeated
    bench = tmp_path / "bench"
    assert "[build-intents] done" in done.stdout and "[eval-intents] done" in done.stdout
    assert "[build-intents] done-earlier" in again.stdout
    queries = [json.loads(line) for line in (bench / "intents" / "queries.jsonl").open()]
    assert queries and len({q["text"] for q in queries}) == len(queries)
    assert {q["text"] for q in queries} <= {row[3] for row in BREAD}  # the baker's questions
    report = (bench / "report.md").read_text(encoding="utf-8")
    assert "| intents.query |" in report and "bm25" in report
    # the truth first: a verdict per method above the stages and scores
    assert report.index("## Verdict") < report.index("## Stages")
    assert "- intents: kept" in report and "judges: relevance" in report
    manifest = json.loads((bench / "manifest.json").read_text())
    stages = manifest["steps"]["recipe"]["stages"]
    assert all(stage["status"] == "done" for stage in stages.values())
    assert stages["build-intents"]["kind"] == "build"  # run in-process, no argv
    # the re-run keeps what the run that did the work recorded, and shows it
    detail = stages["build-intents"]["detail"]
    assert "queries kept" in detail and f"[build-intents] done-earlier: {detail}" in again.stdout
    # the default taxonomy with a capable model: the categories the model named
    taxonomy = json.loads((bench / "intents" / "manifest.json").read_text())["steps"][
        "intents"]["details"]["taxonomy"]
    assert taxonomy["derivation"] == "model"
    assert taxonomy["categories"][0]["name"] == "Dough, baking and keeping bread"


def test_copied_answers_are_rejected_and_the_run_fails_naming_why(tmp_path: Path) -> None:
    with ScriptedServer(_script(good=False)) as server:
        done = _run(tmp_path, _recipe(tmp_path, server.url))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "[build-intents] failed" in done.stdout
    assert "[eval-intents] skipped" in done.stdout
    assert "0 intent queries accepted" in done.stdout + done.stderr
    failures = [json.loads(line) for line in
                (tmp_path / "bench" / "intents" / "failures.jsonl").open()]
    copied = [f for f in failures if f["step"] == "intents.query"]
    assert copied and all(f["reason"].startswith("rejected:") for f in copied)
    assert not (tmp_path / "bench" / "intents" / "queries.jsonl").exists() or not (
        tmp_path / "bench" / "intents" / "queries.jsonl").read_text().strip()
