"""Run a recipe end to end: corpus -> methods -> pool -> labels -> eval -> report.

Each stage is one of the step-by-step verbs (the same ones the README shows), run in this
process with the arguments the recipe resolves to, so a recipe run and a hand-typed run do the
same thing. Stages are resumable: the manifest's ``recipe`` entry records each finished stage
with a hash of its arguments, a re-run skips those (``--from STAGE`` redoes from there), and
every LLM call goes through one cache in the benchmark folder, so a killed run never repeats a
finished call. A stage that fails stops the stages that need it, the others go on, and the run
ends non-zero naming what failed and why.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError, IrforgeError
from irforge.recipe.model import Recipe, StageModel, write_recipe
from irforge.recipe.outputs import empty_output

CACHE = Path(".irforge") / "cache.sqlite"


@dataclass(frozen=True)
class Stage:
    """One verb run: its name, the stages it needs, and its command-line arguments."""

    name: str
    argv: tuple[str, ...]
    needs: tuple[str, ...] = ()
    method: str | None = None

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.argv).encode()).hexdigest()[:16]


@dataclass
class StageResult:
    name: str
    status: str  # done, done-earlier, failed, skipped
    detail: str = ""
    exit_code: int = 0


@dataclass
class RunReport:
    """What a recipe run did, stage by stage."""

    out: Path
    results: list[StageResult] = field(default_factory=list)

    @property
    def failed(self) -> list[StageResult]:
        return [r for r in self.results if r.status in ("failed", "skipped")]

    @property
    def exit_code(self) -> int:
        codes = [r.exit_code for r in self.results if r.status == "failed"]
        return max(codes) if codes else (3 if self.failed else 0)


# -- the stages a recipe resolves to ---------------------------------------------------------

def _llm_args(recipe: Recipe, stage: StageModel | None, out: Path) -> list[str]:
    model, base = recipe.llm_for(stage)
    args = ["--cache", str(out / CACHE)]
    if model:
        args += ["--model", model]
    if base:
        args += ["--api-base", base]
    return args


def _corpus_stage(recipe: Recipe, out: Path) -> Stage:
    spec = recipe.corpus
    argv = ["corpus", "build", str(out), "--max-tokens", str(spec.max_tokens)]
    for flag, value in (("--input", spec.input), ("--urls", spec.urls),
                        ("--queries", spec.queries)):
        if value is not None:
            argv += [flag, str(value)]
    if not spec.passage_dedup:
        argv.append("--skip-passage-dedup")
    return Stage("corpus", tuple(argv))


def _method_stages(recipe: Recipe, out: Path) -> Iterator[Stage]:
    corpus = str(out / "corpus.jsonl")
    methods = recipe.methods
    if methods.intents:
        spec = methods.intents
        argv = ["build", "intents", str(out / "intents"), "--corpus", corpus,
                "--intents", ",".join(spec.intents), "--per-task", str(spec.per_task)]
        if spec.taxonomy != "derived":
            argv += ["--taxonomy", spec.taxonomy]
        yield Stage("build-intents", (*argv, *_llm_args(recipe, spec, out)), ("corpus",),
                    "intents")
        yield Stage("pool-intents", ("corpus", "pool", str(out / "intents"),
                                     *(x for r in recipe.pool.retrievers
                                       for x in ("--retriever", r)),
                                     "--k", str(recipe.pool.k)), ("build-intents",), "intents")
        yield Stage("label-intents", (
            "label", str(out / "intents"), "--pool",
            str(out / "intents" / "pool" / "candidates.jsonl"),
            "--strategies", ",".join(recipe.label.strategies),
            *_llm_args(recipe, recipe.label, out)), ("pool-intents",), "intents")
    if methods.logical:
        spec = methods.logical
        yield Stage("build-logical", (
            "build", "logical", str(out / "logical"), "--corpus", corpus,
            "--types", ",".join(spec.types), "--per-type", str(spec.per_type),
            "--passage-sentences", str(spec.passage_sentences),
            *_llm_args(recipe, spec, out)), ("corpus",), "logical")
    if methods.multicon:
        spec = methods.multicon
        argv = ["build", "multicon", str(out / "multicon"), "--corpus", corpus,
                "--n", str(spec.n), "--phrases", spec.phrases]
        if spec.limit:
            argv += ["--limit", str(spec.limit)]
        if spec.domain != "derived":
            argv += ["--domain", spec.domain]
        yield Stage("build-multicon", (*argv, *_llm_args(recipe, spec, out)), ("corpus",),
                    "multicon")
    if methods.instructions:
        spec = methods.instructions
        yield Stage("build-instructions", (
            "build", "instructions", str(out / "instructions"), "--corpus",
            str(out / spec.from_), "--dimension", spec.dimension,
            *_llm_args(recipe, spec, out)), ("label-intents",), "instructions")


def _eval_stage(recipe: Recipe, out: Path, method: str, needs: str) -> Stage:
    argv = ["eval", str(out / method)]
    for retriever in recipe.eval.retrievers:
        argv += ["--retriever", retriever]
    for metric in recipe.eval.metrics:
        argv += ["--metric", metric]
    return Stage(f"eval-{method}", tuple(argv), (needs,), method)


def plan(recipe: Recipe, out: Path) -> list[Stage]:
    """Every stage of ``recipe`` in run order."""
    stages = [_corpus_stage(recipe, out), *_method_stages(recipe, out)]
    last = {stage.method: stage.name for stage in stages if stage.method}
    stages += [_eval_stage(recipe, out, method, name) for method, name in last.items()]
    return stages


# -- running ---------------------------------------------------------------------------------

Invoke = Callable[[list[str]], int]


def invoke_verb(argv: list[str]) -> int:
    """Run one irforge verb in this process; its exit code (errors raise IrforgeError)."""
    from irforge.cli.app import build_app

    code = build_app()(args=argv, standalone_mode=False)
    return code if isinstance(code, int) else 0


def _spent(out: Path) -> float:
    """US dollars every LLM stage of this run has spent so far (from the manifests)."""

    def walk(node: Any) -> float:
        if isinstance(node, dict):
            own = float(node["cost_usd"]) if "cost_usd" in node and "prompts" in node else 0.0
            return own + sum(walk(v) for k, v in node.items() if k != "cost_usd")
        if isinstance(node, list):
            return sum(walk(v) for v in node)
        return 0.0

    total = 0.0
    for manifest in sorted(out.rglob("manifest.json")):
        try:
            total += walk(json.loads(manifest.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return total


def _with_budget(stage: Stage, recipe: Recipe, out: Path) -> list[str]:
    argv = list(stage.argv)
    if recipe.budget_usd is None or "--cache" not in argv:
        return argv
    left = recipe.budget_usd - _spent(out)
    if left <= 0:
        raise IrforgeError(f"the recipe's budget of ${recipe.budget_usd:g} is spent "
                           f"(${_spent(out):.4f}); raise budget_usd to go on")
    return [*argv, "--budget", f"{left:.6f}"]


def run_recipe(recipe: Recipe, out: Path, redo_from: str | None = None,
               invoke: Invoke = invoke_verb, echo: Callable[[str], None] = print) -> RunReport:
    """Run every stage not already done, holding the folder's writer lock throughout (a
    second run on the folder is refused before it writes); returns what happened to each."""
    out = Path(out).resolve()
    with Benchmark(out).writing():
        return _run_stages(recipe, out, redo_from, invoke, echo)


def _run_stages(recipe: Recipe, out: Path, redo_from: str | None, invoke: Invoke,
                echo: Callable[[str], None]) -> RunReport:
    write_recipe(recipe, out / "recipe.yaml")
    bench = Benchmark(out)
    stages = plan(recipe, out)
    names = [stage.name for stage in stages]
    if redo_from is not None and redo_from not in names:
        raise IrforgeError(f"unknown stage {redo_from!r}; this recipe's stages: "
                           f"{', '.join(names)}")
    done = dict(bench.manifest().get("steps", {}).get("recipe", {}).get("stages", {}))
    redo = set(names[names.index(redo_from):]) if redo_from else set()
    report = RunReport(out)
    ok: set[str] = set()
    for stage in stages:
        result = _run_stage(stage, recipe, out, done, redo, ok, invoke)
        report.results.append(result)
        echo(f"[{stage.name}] {result.status}" + (f": {result.detail}" if result.detail else ""))
        if result.status in ("done", "done-earlier"):
            ok.add(stage.name)
        done[stage.name] = {"status": result.status.replace("done-earlier", "done"),
                            "digest": stage.digest, "detail": result.detail,
                            "argv": ["irforge", *stage.argv]}
        bench.record_step("recipe", {"recipe": recipe.resolved(), "stages": done})
    return report


def _run_stage(stage: Stage, recipe: Recipe, out: Path, done: dict[str, Any],
               redo: set[str], ok: set[str], invoke: Invoke) -> StageResult:
    missing = [need for need in stage.needs if need not in ok]
    if missing:
        return StageResult(stage.name, "skipped", f"needs {', '.join(missing)}, which did "
                                                  "not finish")
    earlier = done.get(stage.name, {})
    if (stage.name not in redo and earlier.get("status") == "done"
            and earlier.get("digest") == stage.digest):
        return StageResult(stage.name, "done-earlier", "finished in an earlier run")
    try:
        code = invoke(_with_budget(stage, recipe, out))
    except EmptyResultError as exc:
        return StageResult(stage.name, "failed", str(exc), exc.exit_code)
    except IrforgeError as exc:
        return StageResult(stage.name, "failed", str(exc), exc.exit_code)
    except SystemExit as exc:  # a verb that exits on its own
        code = exc.code if isinstance(exc.code, int) else 1
    if code:
        return StageResult(stage.name, "failed", f"irforge {' '.join(stage.argv[:2])} exited "
                                                 f"with {code}", int(code))
    empty = empty_output(stage.name, stage.method, out)
    if empty is not None:  # an empty stage is never done: the stages after it are skipped
        return StageResult(stage.name, "failed", empty, 3)
    return StageResult(stage.name, "done")
