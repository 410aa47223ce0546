"""What every build verb does once its flags are a method's Config: open the folder and the
engine, then run the method through :meth:`~irforge.steps.method.Method.run`, the one way a
method runs (the recipe, the demo and the Python API call it too)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irforge.steps.method import Built, Inputs, Method, MethodConfig
    from irforge.steps.runner import BuildRunner

#: the shared LLM flags a verb may take (irforge/cli/options.py), passed on to the engine
ENGINE_FLAGS = frozenset({"model", "api_base", "budget", "concurrency", "rpm", "tpm", "cache",
                          "no_cache", "prompts_dir", "timeout", "price_per_mtok", "transport",
                          "samples", "max_tokens"})

Show = Callable[["Built", "BuildRunner"], Any]


def engine_flags(flags: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    """The engine's settings among a verb's flags (its ``locals()``), plus ``extra``."""
    return {**{name: value for name, value in flags.items() if name in ENGINE_FLAGS}, **extra}


def run_method(method: Method, bench_dir: Path, config: MethodConfig, inputs: Inputs,
               show: Show, engine: Mapping[str, Any]) -> Built:
    """Build ``method`` into ``bench_dir`` under the folder's writer lock with one engine;
    ``show(built, runner)`` prints what it built before ``Method.run`` finishes."""
    from irforge.core.bench import Benchmark
    from irforge.llm.options import engine_from_options
    from irforge.steps.runner import BuildRunner

    with Benchmark(bench_dir).writing(), engine_from_options(bench_dir=bench_dir,
                                                             **engine) as llm:
        runner = BuildRunner.open(llm, bench_dir, method.name)
        return method.run(runner, config, inputs, lambda built: show(built, runner))


def estimate_method(method: Method, bench_dir: Path, config: MethodConfig, inputs: Inputs,
                    engine: Mapping[str, Any]) -> Any:
    """``--dry-run``: the method's estimate of what a build would send; writes nothing."""
    from irforge.llm.options import engine_from_options
    from irforge.steps.runner import BuildRunner

    assert method.estimate is not None, f"{method.name} has no dry run"
    with engine_from_options(bench_dir=bench_dir, **engine) as llm:
        return method.estimate(BuildRunner.open(llm, bench_dir, method.name), config, inputs)
