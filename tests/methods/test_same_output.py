"""The verb, the recipe's build stage and the Python API build the same folder: for each
method, the same inputs, seed and scripted answers give byte-identical files (the manifest
entry compared without the engine's settings and the finish time, which differ by caller).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from irforge.cli.app import build_app
from irforge.core.beir import write_corpus
from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.jsonl import write_jsonl
from irforge.core.records import Doc, Qrel, Query
from irforge.llm import Engine
from irforge.methods import Inputs, get_method, registry
from irforge.recipe.model import Recipe
from irforge.recipe.stages import RunContext, Stage, run_build, run_label
from irforge.steps.runner import BuildRunner
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.recipe.test_run_all_methods import DOCS, good_script

# each method's recipe block and the same options as the verb's flags; the logical judge
# (through the judge-control hook: its control log and judge_controls.json) runs as its own
# case, keyed "logical" for its folder and verb
CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "intents": ({"intents": ["QA"], "per_task": 4, "taxonomy": "lexical"},
                ["--intents", "QA", "--per-task", "4", "--taxonomy", "lexical"]),
    "logical": ({"types": ["2in"], "per_type": 8, "passage_sentences": 0},
                ["--types", "2in", "--per-type", "8", "--passage-sentences", "0"]),
    "multicon": ({"n": 3, "limit": None, "domain": "books"},
                 ["--n", "3", "--limit", "0", "--domain", "books"]),
    "instructions": ({"dimension": "audience"}, ["--dimension", "audience"]),
}
JUDGED = ({"types": ["2in"], "per_type": 8, "passage_sentences": 0, "judge": True},
          ["--types", "2in", "--per-type", "8", "--passage-sentences", "0", "--judge"])
# labeling: controls off, and controls from the shipped sample queries (the scripted judge
# calls every pair relevant, so each caller stops with exit 8 after writing the same files)
LABELS: dict[str, tuple[dict[str, Any], list[str], int]] = {
    "no-controls": ({"strategies": ["zero_shot"], "controls": False},
                    ["--strategies", "zero_shot", "--no-controls"], 0),
    "sample-controls": ({"strategies": ["zero_shot"], "controls_from": "sample"},
                        ["--strategies", "zero_shot", "--controls-from", "sample"], 8),
}
SKIPPED = {"manifest.json", ".irforge", ".lock"}


def judging_script() -> Script:
    """The good script with a logical judge that reads the declared type: 4 for 2in (every
    query's own type), 1 for the other types its controls declare."""
    script = good_script()
    judge = (Rule("Declared type: 2in", (Action.answer({"score": 4, "reason": "exact"}),)),
             Rule("Declared type:", (Action.answer({"score": 1, "reason": "other"}),)))
    return replace(script, rules=(*judge, *script.rules))


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file the build wrote, by path, but the manifest and the engine's cache."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()
            and not set(path.relative_to(folder).parts) & SKIPPED
            and not path.name.endswith(".lock")}


def entry_of(folder: Path, name: str) -> dict[str, Any]:
    """The method's manifest entry without what depends on the caller's engine settings (its
    own entry, the cost estimate priced with its token limit) and the clock."""
    entry = json.loads((folder / "manifest.json").read_text())["steps"][name]
    entry["details"].pop("estimate", None)
    return {key: value for key, value in entry.items() if key not in {"engine", "finished"}}


def write_docs(out: Path) -> Path:
    """The test documents as ``out/corpus.jsonl`` (where a recipe's corpus stage puts them)."""
    out.mkdir(parents=True)
    write_corpus(out / "corpus.jsonl", [Doc(key, text, title) for key, title, text, _, _ in DOCS])
    (out / "docs").mkdir()
    return out / "corpus.jsonl"


def labelled_folder(root: Path) -> Path:
    """A labelled folder as ``irforge label`` leaves one: each question with its document."""
    bench = Benchmark(root)
    bench.write_corpus([Doc(key, text, title) for key, title, text, _, _ in DOCS])
    bench.write_queries([Query(f"q-{key}", question, {"intent": "QA"})
                         for key, _, _, question, _ in DOCS])
    bench.write_qrels([Qrel(f"q-{key}", key, 2) for key, *_ in DOCS])
    return root


def exit_of(call: Callable[[], Any]) -> int:
    """The exit status of a caller: 0, or the exit code of the irforge error it stopped on."""
    try:
        call()
    except IrforgeError as exc:
        return exc.exit_code
    return 0


def exit_code(result: Result) -> int:
    """The exit status the command line gives for a verb's result (an irforge error's code:
    the test runner does not turn it into the process status)."""
    error = result.exception
    return error.exit_code if isinstance(error, IrforgeError) else result.exit_code


def api(name: str, config: Any, inputs: Inputs, folder: Path, url: str) -> int:
    with Engine("openai/scripted", api_base=url, cache_path=folder.parent / f"{name}-api.sqlite",
                progress=False) as llm:
        return exit_of(lambda: get_method(name).run(BuildRunner.open(llm, folder, name),
                                                    config, inputs))


def verb(name: str, flags: list[str], folder: Path, source: Path, url: str) -> None:
    corpus_flag = ["--corpus", str(source)]
    result = CliRunner().invoke(build_app(), [
        "build", name, str(folder), *corpus_flag, *flags, "--model", "openai/scripted",
        "--api-base", url, "--cache", str(folder.parent / f"{name}-verb.sqlite")])
    assert exit_code(result) == 0, result.output


def recipe(name: str, block: dict[str, Any], out: Path, url: str) -> None:
    """The recipe's build stage for ``name`` alone, in ``out`` (its corpus already there)."""
    methods = {"intents": CASES["intents"][0], name: block}
    spec = Recipe.model_validate({"corpus": {"input": str(out / "docs")},
                                  "model": "openai/scripted", "api_base": url,
                                  "methods": methods})
    ctx = RunContext(recipe=spec, out=out, rebuilt=frozenset(registry()))
    run_build(ctx, Stage(f"build-{name}", "build", {}, method=name))


def test_every_method_has_a_case() -> None:
    """A new method is compared too: each registered method is a build case or labeling."""
    assert set(registry()) == {*CASES, "relevance"}


@pytest.mark.parametrize("case", [*CASES, "logical-judged"])
def test_verb_recipe_and_python_api_build_the_same_folder(case: str, tmp_path: Path) -> None:
    name = case.removesuffix("-judged")
    block, flags = JUDGED if case == "logical-judged" else CASES[name]
    config = get_method(name).config.model_validate(block)
    out = tmp_path / "recipe"  # the recipe's folder: every caller reads its corpus and source
    corpus = write_docs(out)
    with ScriptedServer(judging_script()) as server:
        source = None
        if name == "instructions":  # built on a labelled intents folder
            source = labelled_folder(out / "intents")
        status = api(name, config, Inputs(corpus, source), tmp_path / "api" / name, server.url)
        assert status == 0
        verb(name, flags, tmp_path / "verb" / name, source or corpus, server.url)
        recipe(name, block, out, server.url)
    built = {how: tmp_path / how / name for how in ("api", "verb", "recipe")}
    files = {how: files_of(folder) for how, folder in built.items()}
    assert files["api"] and "queries.jsonl" in files["api"]
    assert files["verb"] == files["api"], sorted(set(files["verb"].items())
                                                 ^ set(files["api"].items()))
    assert files["recipe"] == files["api"], sorted(set(files["recipe"].items())
                                                   ^ set(files["api"].items()))
    entries = {how: entry_of(folder, name) for how, folder in built.items()}
    assert entries["verb"] == entries["api"] == entries["recipe"]
    if case == "logical-judged":  # the judge-control hook's log and entry, the same by caller
        # at least one kept query's three controls (own, other and near type)
        assert files["api"]["logical/controls.jsonl"].count(b"\n") >= 3
        assert b'"controls_file": "logical/controls.jsonl"' in files["api"]["judge_controls.json"]


@pytest.mark.parametrize("case", list(LABELS))
def test_label_verb_recipe_stage_and_python_api_label_the_same_way(case: str,
                                                                   tmp_path: Path) -> None:
    """``irforge label``, the recipe's label stage and ``Method.run`` write the same labels
    (the pool's path, recorded as the input, differs by folder and is left out), and stop
    the same way."""
    block, flags, code = LABELS[case]
    config = get_method("relevance").config.model_validate(block)
    folders = {how: labelled_folder(tmp_path / how / "intents")
               for how in ("api", "verb", "recipe")}
    ids = [key for key, *_ in DOCS]
    for folder in folders.values():
        write_jsonl(folder / "pool" / "candidates.jsonl",
                    [{"query_id": f"q-{key}", "doc_ids": ids[:3]} for key in ids])
    (tmp_path / "recipe" / "docs").mkdir()
    pool = Path("pool") / "candidates.jsonl"
    with ScriptedServer(good_script()) as server:
        assert api("relevance", config, Inputs(folders["api"] / "corpus.jsonl",
                                                folders["api"] / pool),
                   folders["api"], server.url) == code
        result = CliRunner().invoke(build_app(), [
            "label", str(folders["verb"]), "--pool", str(folders["verb"] / pool), *flags,
            "--model", "openai/scripted", "--api-base", server.url, "--cache",
            str(tmp_path / "verb" / "label.sqlite")])
        assert exit_code(result) == code, result.output
        spec = Recipe.model_validate({"corpus": {"input": str(tmp_path / "recipe" / "docs")},
                                      "model": "openai/scripted", "api_base": server.url,
                                      "label": block})
        assert exit_of(lambda: run_label(RunContext(recipe=spec, out=tmp_path / "recipe",
                                                    rebuilt=frozenset(registry())),
                                         Stage("label-intents", "label", {},
                                               method="intents"))) == code
    files = {how: files_of(folder) for how, folder in folders.items()}
    assert "qrels/test.tsv" in files["api"] and "judgments.jsonl" in files["api"]
    if code:  # the judge's controls, mixed in by the hook, logged the same way
        assert "relevance/controls.jsonl" in files["api"]
    assert files["verb"] == files["api"] == files["recipe"]
    entries = {how: entry_of(folder, "relevance") for how, folder in folders.items()}
    for entry in entries.values():
        entry["details"].pop("inputs")
    assert entries["verb"] == entries["api"] == entries["recipe"]
