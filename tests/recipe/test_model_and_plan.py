"""Recipe files: validation with file/key/fix, resolved defaults, the stage plan, resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from irforge.core.errors import FormatError, IrforgeError
from irforge.recipe.model import DEFAULT_RECIPE, load_recipe, write_recipe
from irforge.recipe.run import plan, run_recipe


def _recipe(tmp_path: Path, text: str) -> Path:
    (tmp_path / "docs").mkdir(exist_ok=True)
    path = tmp_path / "recipe.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_default_recipe_is_valid_and_names_every_method(tmp_path: Path) -> None:
    recipe = load_recipe(DEFAULT_RECIPE)
    assert recipe.methods.chosen() == ["intents", "logical", "multicon", "instructions"]
    assert recipe.corpus.input == (DEFAULT_RECIPE.parent / "my_documents").resolve()


def test_a_typo_names_the_file_the_key_and_the_closest_known_key(tmp_path: Path) -> None:
    path = _recipe(tmp_path, "corpus: {input: docs}\nmethods:\n  intents: {taxonmy: derived}\n")
    with pytest.raises(FormatError) as info:
        load_recipe(path)
    message = str(info.value)
    assert str(path) in message and "methods.intents.taxonmy" in message
    assert "did you mean 'taxonomy'?" in message


def test_every_problem_is_listed_and_rules_are_explained(tmp_path: Path) -> None:
    path = _recipe(tmp_path, "corpus: {}\nmethods: {instructions: {}}\npool: {k: 0}\n")
    with pytest.raises(FormatError) as info:
        load_recipe(path)
    message = str(info.value)
    assert "corpus.input" in message and "pool.k" in message
    path = _recipe(tmp_path, "corpus: {input: docs}\nmethods: {instructions: {}}\n")
    with pytest.raises(FormatError, match="builds on intents"):
        load_recipe(path)
    with pytest.raises(FormatError, match="not valid YAML"):
        load_recipe(_recipe(tmp_path, "corpus: [\n"))
    with pytest.raises(FormatError, match="recipe file not found"):
        load_recipe(tmp_path / "missing.yaml")


def test_the_resolved_recipe_round_trips_to_the_same_plan(tmp_path: Path) -> None:
    path = _recipe(tmp_path, "corpus: {input: docs}\nmodel: openai/x\n"
                             "methods:\n  intents: {per_task: 3}\n  logical: {model: other}\n")
    recipe = load_recipe(path)
    out = tmp_path / "bench"
    again = load_recipe(write_recipe(recipe, tmp_path / "resolved.yaml"))
    assert [s.argv for s in plan(again, out)] == [s.argv for s in plan(recipe, out)]
    stages = {s.name: s for s in plan(recipe, out)}
    assert list(stages) == ["corpus", "build-intents", "pool-intents", "label-intents",
                            "build-logical", "eval-intents", "eval-logical"]
    intents = stages["build-intents"].argv
    assert intents[intents.index("--per-task") + 1] == "3"
    assert intents[intents.index("--model") + 1] == "openai/x"
    assert "--taxonomy" not in intents  # derived from the corpus by default
    logical = stages["build-logical"].argv
    assert logical[logical.index("--model") + 1] == "other"
    assert logical[logical.index("--cache") + 1] == str(out / ".irforge" / "cache.sqlite")
    assert stages["eval-intents"].needs == ("label-intents",)


def _fake_verbs(calls: list[list[str]], fail: str | None = None):
    """Stands in for the verbs: records each call, writes what later stages look for."""

    def invoke(argv: list[str]) -> int:
        calls.append(argv)
        if fail and argv[:2] == fail.split():
            raise IrforgeError("the model answered nothing usable")
        if argv[:2] == ["corpus", "build"]:
            _write_corpus(Path(argv[2]))
        if argv[0] == "build":
            folder = Path(argv[2])
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "a query"}\n')
        return 0

    return invoke


def _write_corpus(out: Path) -> None:
    """What a corpus stage leaves behind (an empty one is a failed stage)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "corpus.jsonl").write_text('{"_id": "d1", "text": "a passage"}\n')


def test_a_rerun_skips_finished_stages_and_from_redoes_the_rest(tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nmethods: {logical: {}}\n"))
    out = tmp_path / "bench"
    calls: list[list[str]] = []
    first = run_recipe(recipe, out, invoke=_fake_verbs(calls), echo=lambda line: None)
    assert [r.status for r in first.results] == ["done", "done", "done"]
    assert len(calls) == 3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["steps"]["recipe"]["stages"]["build-logical"]["status"] == "done"
    assert yaml.safe_load((out / "recipe.yaml").read_text())["methods"]["logical"]["per_type"] == 2
    again = run_recipe(recipe, out, invoke=_fake_verbs(calls), echo=lambda line: None)
    assert [r.status for r in again.results] == ["done-earlier"] * 3 and len(calls) == 3
    redo = run_recipe(recipe, out, "build-logical", invoke=_fake_verbs(calls),
                      echo=lambda line: None)
    assert [r.status for r in redo.results] == ["done-earlier", "done", "done"]
    assert len(calls) == 5
    with pytest.raises(IrforgeError, match="unknown stage 'bogus'"):
        run_recipe(recipe, out, "bogus", invoke=_fake_verbs(calls), echo=lambda line: None)


def test_a_failed_method_stops_only_what_needs_it_and_the_run_exits_non_zero(
        tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\n"
                                           "methods: {logical: {}, multicon: {}}\n"))
    calls: list[list[str]] = []
    report = run_recipe(recipe, tmp_path / "bench", invoke=_fake_verbs(calls, "build logical"),
                        echo=lambda line: None)
    status = {r.name: r.status for r in report.results}
    assert status == {"corpus": "done", "build-logical": "failed", "build-multicon": "done",
                      "eval-logical": "skipped", "eval-multicon": "done"}
    assert report.exit_code == 2
    assert "the model answered nothing usable" in report.results[1].detail


def test_a_method_that_wrote_no_query_is_a_failure_even_if_its_verb_said_ok(
        tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nmethods: {logical: {}}\n"))

    def silent(argv: list[str]) -> int:  # the corpus is written, the method writes nothing
        if argv[:2] == ["corpus", "build"]:
            _write_corpus(Path(argv[2]))
        return 0

    report = run_recipe(recipe, tmp_path / "bench", invoke=silent, echo=lambda line: None)
    assert [r.status for r in report.results] == ["done", "failed", "skipped"]
    assert "0 queries written" in report.results[1].detail and report.exit_code == 3


def test_the_budget_is_shared_by_every_llm_stage(tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nbudget_usd: 1.5\n"
                                           "methods: {logical: {}}\n"))
    out = tmp_path / "bench"
    (out / "earlier").mkdir(parents=True)
    (out / "earlier" / "manifest.json").write_text(json.dumps(
        {"steps": {"x": {"engine": {"prompts": {}, "cost_usd": 0.5}}}}))
    calls: list[list[str]] = []
    run_recipe(recipe, out, invoke=_fake_verbs(calls), echo=lambda line: None)
    build = next(c for c in calls if c[:2] == ["build", "logical"])
    assert build[build.index("--budget") + 1] == "1.000000"
    assert "--budget" not in calls[0]  # corpus build calls no LLM


def test_an_empty_corpus_stage_is_failed_and_never_recorded_done(tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nmethods: {logical: {}}\n"))
    out = tmp_path / "bench"

    def empty_corpus(argv: list[str]) -> int:  # the verb says ok but writes no passage
        if argv[:2] == ["corpus", "build"]:
            out.mkdir(parents=True, exist_ok=True)
            (out / "corpus.jsonl").write_text("")
        return 0

    report = run_recipe(recipe, out, invoke=empty_corpus, echo=lambda line: None)
    assert [r.status for r in report.results] == ["failed", "skipped", "skipped"]
    assert "0 passages in" in report.results[0].detail and report.exit_code == 3
    stages = json.loads((out / "manifest.json").read_text())["steps"]["recipe"]["stages"]
    assert stages["corpus"]["status"] == "failed"
