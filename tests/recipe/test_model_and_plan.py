"""Recipe files: validation with file/key/fix, resolved defaults, the stage plan, resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from irforge.core.errors import FormatError, IrforgeError
from irforge.recipe.model import DEFAULT_RECIPE, load_recipe, write_recipe
from irforge.recipe.run import CACHE, plan, run_recipe


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
    assert [s.digest for s in plan(again, out)] == [s.digest for s in plan(recipe, out)]
    stages = {s.name: s for s in plan(recipe, out)}
    assert list(stages) == ["corpus", "build-intents", "pool-intents", "label-intents",
                            "build-logical", "eval-intents", "eval-logical"]
    intents = stages["build-intents"].config  # the method's typed Config, not argv
    assert intents["per_task"] == 3
    assert intents["model"] == "openai/x"
    assert intents["taxonomy"] == "derived"  # derived from the corpus by default
    logical = stages["build-logical"].config
    assert logical["model"] == "other"
    assert Path(".irforge") / "cache.sqlite" == CACHE  # one cache: BENCH/.irforge/cache.sqlite
    assert stages["eval-intents"].needs == ("label-intents",)


def _fake_actions(calls: list[str], fail: str | None = None, spend: float = 0.0,
                  budgets: list[float | None] | None = None):
    """Stands in for the stage actions: records each call, writes what later stages read,
    raises for ``fail``, and spends ``spend`` dollars per LLM stage."""

    def action(ctx, stage) -> str:
        calls.append(stage.name)
        if stage.llm and budgets is not None:
            budgets.append(ctx.budget_left())
            ctx.costs[stage.name] = spend
            ctx.spent_usd += spend
        if stage.name == fail:
            raise IrforgeError("the model answered nothing usable")
        if stage.kind == "corpus":
            _write_corpus(ctx.out)
        if stage.kind == "build":
            folder = ctx.out / str(stage.method)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "a query"}\n')
        written = {"pool": Path("pool") / "candidates.jsonl", "label": Path("qrels") / "test.tsv"}
        if stage.kind in written:
            path = ctx.out / str(stage.method) / written[stage.kind]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("q1\td1\t1\n")
        return "ok"

    return dict.fromkeys(("corpus", "build", "pool", "label", "eval"), action)


def _write_corpus(out: Path) -> None:
    """What a corpus stage leaves behind (an empty one is a failed stage)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "corpus.jsonl").write_text('{"_id": "d1", "text": "a passage"}\n')


def test_a_rerun_skips_finished_stages_and_from_redoes_the_rest(tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nmethods: {logical: {}}\n"))
    out = tmp_path / "bench"
    calls: list[str] = []
    first = run_recipe(recipe, out, actions=_fake_actions(calls), echo=lambda line: None)
    assert [r.status for r in first.results] == ["done", "done", "done"]
    assert len(calls) == 3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["steps"]["recipe"]["stages"]["build-logical"]["status"] == "done"
    assert yaml.safe_load((out / "recipe.yaml").read_text())["methods"]["logical"]["per_type"] == 2
    again = run_recipe(recipe, out, actions=_fake_actions(calls), echo=lambda line: None)
    assert [r.status for r in again.results] == ["done-earlier"] * 3 and len(calls) == 3
    redo = run_recipe(recipe, out, "build-logical", actions=_fake_actions(calls),
                      echo=lambda line: None)
    assert [r.status for r in redo.results] == ["done-earlier", "done", "done"]
    assert len(calls) == 5
    with pytest.raises(IrforgeError, match="unknown stage 'bogus'"):
        run_recipe(recipe, out, "bogus", actions=_fake_actions(calls), echo=lambda line: None)


def test_a_failed_method_stops_only_what_needs_it_and_the_run_exits_non_zero(
        tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\n"
                                           "methods: {logical: {}, multicon: {}}\n"))
    calls: list[str] = []
    report = run_recipe(recipe, tmp_path / "bench",
                        actions=_fake_actions(calls, "build-logical"), echo=lambda line: None)
    status = {r.name: r.status for r in report.results}
    assert status == {"corpus": "done", "build-logical": "failed", "build-multicon": "done",
                      "eval-logical": "skipped", "eval-multicon": "done"}
    assert report.exit_code == 2
    assert "the model answered nothing usable" in report.results[1].detail


def test_a_method_that_kept_nothing_fails_with_exit_3_and_skips_its_eval(
        tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nmethods: {logical: {}}\n"))
    actions = _fake_actions([])

    def empty(ctx, stage) -> str:
        if stage.kind == "build":
            from irforge.core.errors import EmptyResultError

            raise EmptyResultError("0 logical queries accepted")
        return "ok"

    report = run_recipe(recipe, tmp_path / "bench", actions={**actions, "build": empty},
                        echo=lambda line: None)
    assert [r.status for r in report.results] == ["done", "failed", "skipped"]
    assert "0 logical queries" in report.results[1].detail and report.exit_code == 3


def test_the_budget_is_shared_by_every_llm_stage(tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nbudget_usd: 1.5\n"
                                           "methods: {logical: {}, multicon: {}}\n"))
    out = tmp_path / "bench"
    calls: list[str] = []
    budgets: list[float | None] = []
    report = run_recipe(recipe, out, actions=_fake_actions(calls, spend=0.5, budgets=budgets),
                        echo=lambda line: None)
    assert budgets == [1.5, 1.0]  # the runner knows what each LLM stage spent
    assert report.spent_usd == 1.0
    assert "corpus" in calls and len(budgets) == 2  # the corpus stage calls no LLM
    stages = json.loads((out / "manifest.json").read_text())["steps"]["recipe"]["stages"]
    assert stages["build-logical"]["cost_usd"] == 0.5
    resumed = run_recipe(recipe, out, "build-multicon",
                         actions=_fake_actions(calls, spend=0.5, budgets=budgets),
                         echo=lambda line: None)
    assert budgets[-1] == 1.0 and resumed.spent_usd == 1.0  # earlier stages' spending counts


def test_an_empty_corpus_stage_is_failed_and_never_recorded_done(tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nmethods: {logical: {}}\n"))
    out = tmp_path / "bench"

    def empty_corpus(ctx, stage) -> str:  # the action says ok but writes no passage
        ctx.out.mkdir(parents=True, exist_ok=True)
        (ctx.out / "corpus.jsonl").write_text("")
        return "ok"

    report = run_recipe(recipe, out, actions={**_fake_actions([]), "corpus": empty_corpus},
                        echo=lambda line: None)
    assert [r.status for r in report.results] == ["failed", "skipped", "skipped"]
    assert "0 passages in" in report.results[0].detail and report.exit_code == 3
    stages = json.loads((out / "manifest.json").read_text())["steps"]["recipe"]["stages"]
    assert stages["corpus"]["status"] == "failed"


def test_each_stage_says_when_it_starts_and_ends_so_a_log_shows_what_runs(tmp_path: Path) -> None:
    recipe = load_recipe(_recipe(tmp_path, "corpus: {input: docs}\nmethods: {logical: {}}\n"))
    lines: list[str] = []
    run_recipe(recipe, tmp_path / "bench", actions=_fake_actions([]), echo=lines.append)
    started = [line for line in lines if line.endswith("] started")]
    assert len(started) == 3
    for line in started:  # each start comes before its stage's end
        name = line.split("]")[0] + "]"
        ends = [i for i, other in enumerate(lines) if other.startswith(name)
                and not other.endswith("started")]
        assert ends and lines.index(line) < ends[0]


def test_a_rebuilt_stage_redoes_what_needs_it_and_a_lost_output_is_rebuilt(
        tmp_path: Path) -> None:
    """A changed build block rebuilds the queries, so their pool and labels are redone too
    (never kept from the old queries); a stage whose output file is gone runs again."""
    text = "corpus: {input: docs}\nmethods: {intents: {per_task: 2}}\n"
    out = tmp_path / "bench"
    calls: list[str] = []
    run_recipe(load_recipe(_recipe(tmp_path, text)), out, actions=_fake_actions(calls),
               echo=lambda line: None)
    assert calls == ["corpus", "build-intents", "pool-intents", "label-intents", "eval-intents"]
    calls.clear()
    changed = load_recipe(_recipe(tmp_path, text.replace("per_task: 2", "per_task: 3")))
    report = run_recipe(changed, out, actions=_fake_actions(calls), echo=lambda line: None)
    assert calls == ["build-intents", "pool-intents", "label-intents", "eval-intents"]
    assert report.results[0].status == "done-earlier"
    calls.clear()
    (out / "intents" / "pool" / "candidates.jsonl").unlink()
    run_recipe(changed, out, actions=_fake_actions(calls), echo=lambda line: None)
    assert calls == ["pool-intents", "label-intents", "eval-intents"]
