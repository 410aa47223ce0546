"""Run a recipe end to end, in this process: corpus -> methods -> pool -> labels -> eval.

:func:`plan` turns the typed recipe into stages (kind, method, the typed config they run
with, the stages they need); :func:`run_recipe` runs them with the actions of
:mod:`irforge.recipe.stages` (the same library calls the step-by-step verbs wrap). Stages
whose needs are met run concurrently (independent methods at once) unless the recipe says
``parallel: false`` or sets a budget (each LLM stage gets what is left, so they go one by one).
Stages are resumable: the manifest's ``recipe`` entry records each finished stage with a digest
of its config and what it spent; a re-run skips those (``--from STAGE`` redoes from there), and
every LLM call goes through one cache, so a killed run never repeats a finished call. A stage
that fails stops the stages that need it, the others go on, and the run ends non-zero naming
what failed and why, with the failing stage's exit code (docs/failures.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.generation import generation
from irforge.recipe.model import Recipe, write_recipe
from irforge.recipe.outputs import empty_output
from irforge.recipe.stages import ACTIONS, CACHE, Action, RunContext, Stage

__all__ = ["CACHE", "RunReport", "Stage", "StageResult", "plan", "run_recipe"]



@dataclass
class StageResult:
    name: str
    status: str  # done, done-earlier, failed, skipped
    detail: str = ""
    exit_code: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0  # wall time of the stage in this run
    requests: int = 0  # LLM requests it sent (cache hits not counted)


@dataclass
class RunReport:
    """What a recipe run did, stage by stage, and what its LLM stages spent."""

    out: Path
    results: list[StageResult] = field(default_factory=list)
    spent_usd: float = 0.0

    @property
    def failed(self) -> list[StageResult]:
        return [r for r in self.results if r.status in ("failed", "skipped")]

    @property
    def exit_code(self) -> int:
        codes = [r.exit_code for r in self.results if r.status == "failed"]
        return max(codes) if codes else (3 if self.failed else 0)


# -- the stages a recipe resolves to ---------------------------------------------------------

def _llm(recipe: Recipe, own: Any) -> dict[str, Any]:
    model, base = recipe.llm_for(own)
    return {"model": model, "api_base": base}


def _method_stages(recipe: Recipe) -> list[Stage]:
    methods, stages = recipe.methods, []
    for name in methods.chosen():
        spec = getattr(methods, name)
        config = {**spec.model_dump(mode="json", by_alias=True), **_llm(recipe, spec)}
        needs = ("label-intents",) if name == "instructions" else ("corpus",)
        stages.append(Stage(f"build-{name}", "build", config, needs, name))
        if name == "intents":  # intents' qrels come from pooling and LLM labels
            stages.append(Stage("pool-intents", "pool", recipe.pool.model_dump(mode="json"),
                                ("build-intents",), "intents"))
            stages.append(Stage("label-intents", "label", {
                **recipe.label.model_dump(mode="json"), **_llm(recipe, recipe.label)},
                ("pool-intents",), "intents"))
    return stages


def plan(recipe: Recipe, out: Path) -> list[Stage]:
    """Every stage of ``recipe`` in run order (a stage's needs come before it)."""
    corpus = Stage("corpus", "corpus", recipe.corpus.model_dump(mode="json"))
    stages = [corpus, *_method_stages(recipe)]
    last = {stage.method: stage.name for stage in stages if stage.method}
    evals = recipe.eval.model_dump(mode="json")
    stages += [Stage(f"eval-{method}", "eval", evals, (name,), method)
               for method, name in last.items()]
    return stages


# -- running ---------------------------------------------------------------------------------

def run_recipe(recipe: Recipe, out: Path, redo_from: str | None = None,
               echo: Callable[[str], None] = print,
               actions: Mapping[str, Action] = ACTIONS) -> RunReport:
    """Run every stage not already done, holding the folder's writer lock throughout (a
    second run on the folder is refused before it writes); returns what happened to each and
    the money spent."""
    out = Path(out).resolve()
    with Benchmark(out).writing():
        return _run_stages(recipe, out, redo_from, echo, actions)


def _run_stages(recipe: Recipe, out: Path, redo_from: str | None,
                echo: Callable[[str], None], actions: Mapping[str, Action]) -> RunReport:
    write_recipe(recipe, out / "recipe.yaml")
    bench = Benchmark(out)
    stages = plan(recipe, out)
    names = [stage.name for stage in stages]
    if redo_from is not None and redo_from not in names:
        raise IrforgeError(f"unknown stage {redo_from!r}; this recipe's stages: "
                           f"{', '.join(names)}")
    done = dict(bench.manifest().get("steps", {}).get("recipe", {}).get("stages", {}))
    redo = set(names[names.index(redo_from):]) if redo_from else set()
    todo = _todo(stages, done, redo, out)
    ctx = RunContext(recipe, out, frozenset(s.method for s in stages
                                            if s.kind == "build" and s.name in todo))
    ctx.spent_usd = sum(float(done.get(s.name, {}).get("cost_usd", 0.0)) for s in stages
                        if s.name not in todo)
    report = RunReport(out)
    lock = threading.Lock()

    def settle(stage: Stage, result: StageResult) -> None:
        with lock:
            # a stage finished earlier keeps the record (and shows the detail) of the run
            # that did its work, not "finished in an earlier run"
            earlier = done.get(stage.name) if result.status == "done-earlier" else None
            if earlier is not None and earlier.get("detail"):
                result.detail = str(earlier["detail"])
            report.results.append(result)
            echo(f"[{stage.name}] {result.status}"
                 + (f": {result.detail}" if result.detail else ""))
            if stage.kind == "build" and stage.method is not None:
                ctx.decided(stage.method)  # a skipped build decides nothing either
            if earlier is None:
                done[stage.name] = {"status": result.status.replace("done-earlier", "done"),
                                    "digest": stage.digest, "detail": result.detail,
                                    "kind": stage.kind, "config": dict(stage.config),
                                    "cost_usd": round(result.cost_usd, 6),
                                    "seconds": round(result.seconds, 3),
                                    "requests": result.requests}
            bench.record_step("recipe", {"recipe": recipe.resolved(), "stages": done,
                                         "spent_usd": round(ctx.spent_usd, 6)})

    def begin(stage: Stage) -> None:
        with lock:  # a log without progress bars still says what is running
            echo(f"[{stage.name}] started")

    workers = 1 if (recipe.budget_usd is not None or not recipe.parallel) else len(stages)
    if workers > 1:  # one at a time, stages end in the order they start: no waiting needed
        ctx.order_gates([s.method for s in stages if s.kind == "build" and s.name in todo
                         and s.method is not None])
    if workers > 1 and len(ctx.rebuilt) > 1:
        from irforge.check.semantic import warm

        warm()  # parallel build stages share one gate lock: load its model before, not under it
    try:
        _schedule(stages, todo, ctx, actions, (begin, settle), workers)
    finally:
        ctx.close()
    report.results.sort(key=lambda r: names.index(r.name))
    report.spent_usd = ctx.spent_usd
    return report


def _todo(stages: list[Stage], done: Mapping[str, Any], redo: set[str], out: Path) -> set[str]:
    """Stages to run: not finished earlier with this configuration, their output gone since,
    or needing a stage that runs again (a rebuilt query set is pooled and labelled anew)."""
    todo: set[str] = set()
    for stage in stages:  # plan order: a stage's needs come before it
        if (not _finished(stage, done, redo) or any(need in todo for need in stage.needs)
                or empty_output(stage.name, stage.method, out) is not None):
            todo.add(stage.name)
    return todo


def _finished(stage: Stage, done: Mapping[str, Any], redo: set[str]) -> bool:
    earlier = done.get(stage.name, {})
    return (stage.name not in redo and earlier.get("status") == "done"
            and earlier.get("digest") == stage.digest)


def _schedule(stages: list[Stage], todo: set[str], ctx: RunContext,
              actions: Mapping[str, Action],
              hooks: tuple[Callable[[Stage], None], Callable[[Stage, StageResult], None]],
              workers: int) -> None:
    """Start every stage whose needs finished; a stage whose need failed is skipped.
    ``hooks`` are called as a stage starts and as it ends."""
    begin, settle = hooks
    ok: set[str] = set()
    ended: set[str] = set()
    waiting = list(stages)
    running: dict[Future, Stage] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        while waiting or running:
            for stage in list(waiting):
                if not all(need in ended for need in stage.needs):
                    continue
                waiting.remove(stage)
                missing = [need for need in stage.needs if need not in ok]
                if missing:
                    result = StageResult(stage.name, "skipped", f"needs {', '.join(missing)}, "
                                                                "which did not finish")
                elif stage.name not in todo:
                    result = StageResult(stage.name, "done-earlier", "finished in an earlier run")
                else:
                    begin(stage)
                    running[pool.submit(_run_stage, stage, ctx, actions)] = stage
                    continue
                _end(stage, result, ok, ended, settle)
            if not running:
                if waiting and not any(all(n in ended for n in w.needs) for w in waiting):
                    raise IrforgeError("stages wait on stages that are not in the plan: "
                                       + ", ".join(w.name for w in waiting))
                continue
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                stage = running.pop(future)
                _end(stage, future.result(), ok, ended, settle)


def _end(stage: Stage, result: StageResult, ok: set[str], ended: set[str],
         settle: Callable[[Stage, StageResult], None]) -> None:
    if result.status in ("done", "done-earlier"):
        ok.add(stage.name)
    ended.add(stage.name)
    settle(stage, result)


def _run_stage(stage: Stage, ctx: RunContext, actions: Mapping[str, Action]) -> StageResult:
    start = time.perf_counter()
    try:
        # a stage's files land together or not at all (a method stage's own folder: stages
        # run in parallel threads, each commits its own)
        with generation(ctx.out / stage.method if stage.method else ctx.out):
            result = StageResult(stage.name, "done", actions[stage.kind](ctx, stage))
    except IrforgeError as exc:
        result = StageResult(stage.name, "failed", str(exc), exc.exit_code)
    else:
        empty = empty_output(stage.name, stage.method, ctx.out)
        if empty is not None:  # an empty stage is never done: the stages after it are skipped
            result = StageResult(stage.name, "failed", empty, 3)
    result.seconds = time.perf_counter() - start
    result.cost_usd = ctx.costs.get(stage.name, 0.0)
    result.requests = ctx.requests.get(stage.name, 0)
    return result
