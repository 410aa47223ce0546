"""``irforge run`` never marks an empty stage done, says why, and keeps credentials out of the
resolved recipe; ``irforge check`` on a folder that is not built yet says what to run. Real
processes, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "s3cr3tpw"  # a test credential


def irforge(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "irforge", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _junk_recipe(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "junk.txt").write_bytes(b"\x89\x00\xff\xfe binary junk " * 40)
    (docs / "empty.txt").write_bytes(b"")
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(f"""corpus: {{input: docs, passage_dedup: false}}
model: openai/scripted
api_base: http://reader:{PASSWORD}@127.0.0.1:9/v1
methods:
  intents: {{intents: [QA], per_task: 1}}
pool: {{retrievers: [bm25], k: 3}}
label: {{strategies: [zero_shot]}}
eval: {{retrievers: [bm25], metrics: [ndcg@10]}}
""", encoding="utf-8")
    return recipe


def test_an_empty_corpus_stage_fails_with_its_reasons_and_is_never_done(tmp_path: Path) -> None:
    recipe = _junk_recipe(tmp_path)
    bench = tmp_path / "bench"
    first = irforge("run", "bench", "--recipe", str(recipe), cwd=tmp_path)
    assert first.returncode == 3, first.stdout + first.stderr
    assert "[corpus] failed" in first.stdout
    assert "not a text file" in first.stdout + first.stderr  # the real cause, on the console
    assert "[build-intents] skipped: needs corpus" in first.stdout
    assert "taxonom" not in first.stdout + first.stderr  # not the misleading fix
    stages = json.loads((bench / "manifest.json").read_text())["steps"]["recipe"]["stages"]
    assert stages["corpus"]["status"] == "failed"
    again = irforge("run", "bench", "--recipe", str(recipe), cwd=tmp_path)
    assert again.returncode == 3 and "[corpus] failed" in again.stdout
    assert "done-earlier" not in again.stdout


def test_credentials_in_api_base_stay_out_of_the_saved_recipe(tmp_path: Path) -> None:
    recipe = _junk_recipe(tmp_path)
    irforge("run", "bench", "--recipe", str(recipe), cwd=tmp_path)
    for path in (tmp_path / "bench").rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path
    saved = (tmp_path / "bench" / "recipe.yaml").read_text(encoding="utf-8")
    assert "http://***@127.0.0.1:9/v1" in saved
    resumed = irforge("run", "bench", cwd=tmp_path)  # the saved recipe cannot be used as is
    assert resumed.returncode == 2, resumed.stdout + resumed.stderr
    assert "credentials in this URL were removed" in resumed.stderr
    assert "field 'api_base'" in resumed.stderr and "Traceback" not in resumed.stderr


def test_check_on_a_folder_not_built_yet_says_what_to_run(tmp_path: Path) -> None:
    recipe = _junk_recipe(tmp_path)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "recipe.yaml").write_text(recipe.read_text(encoding="utf-8"), encoding="utf-8")
    done = irforge("check", "fresh", cwd=tmp_path)
    assert done.returncode == 1
    assert "nothing built yet" in done.stdout and "irforge run" in done.stdout
    assert "file not found" not in done.stdout
    (tmp_path / "empty").mkdir()
    bare = irforge("check", "empty", cwd=tmp_path)
    assert bare.returncode == 1 and "no benchmark here" in bare.stdout
    assert "irforge recipe init" in bare.stdout
