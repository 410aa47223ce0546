"""CLI verb ``irforge check FOLDER``: the validators of ``irforge.check`` on every folder, and,
with ``--judge-model``, the LLM answer judge (``generators/answer_judge``) with its control
items. It lives here, above both packages, because ``check`` imports no generator."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from irforge.check.cli import Dense, PromptsDir, TargetK, report_json, report_lines
from irforge.cli.options import (
    ApiBaseOption,
    BudgetOption,
    CacheOption,
    ConcurrencyOption,
    TimeoutOption,
)
from irforge.cli.output import JsonOption, emit

JudgeModel = Annotated[str | None, typer.Option(
    "--judge-model", help="Also ask this LLM (litellm id, 'gguf:PATH' or 'embedded') whether "
    "each query's relevant passage answers it as a searcher would ask it. Control items are "
    "mixed in; a judge that fails them flags nothing (exit 8). Off by default: no LLM call "
    "without it.")]


def check(
    bench_dir: Annotated[Path, typer.Argument(
        help="Benchmark folder to validate, or a run folder (every method folder in it).")],
    as_json: JsonOption = False, target_k: TargetK = None, dense: Dense = False,
    prompts_dir: PromptsDir = None, judge_model: JudgeModel = None,
    api_base: ApiBaseOption = None, cache: CacheOption = None, budget: BudgetOption = None,
    concurrency: ConcurrencyOption = None, timeout: TimeoutOption = None,
) -> None:
    """Validate a benchmark folder and every query in it; list every problem, not only the
    first. Exits 1 when any file or query is invalid, 8 when the --judge-model judge failed
    its control items (docs/failures.md lists the validators)."""
    from irforge.check.folder import check_folders

    engine = _judge_engine(judge_model, bench_dir, api_base=api_base, cache=cache,
                           budget=budget, concurrency=concurrency, timeout=timeout)
    retrievers = ("bm25", "dense") if dense else ("bm25",)
    reports = check_folders(bench_dir, target_k=target_k, prompts_dir=prompts_dir,
                            retrievers=retrievers)
    judged = _judge(engine, reports) if engine is not None else {}
    ok = all(report.ok for _, report in reports)
    if as_json:
        summary = report_json(bench_dir, reports, target_k is not None)
        if engine is not None:
            summary["judge"] = {name: _judge_json(outcome) for name, outcome in judged.items()}
        emit(summary, "", as_json=True)
    else:
        for line in report_lines(bench_dir, reports, target_k is not None, retrievers):
            typer.echo(line)
        for name, outcome in judged.items():
            typer.echo(_judge_text(name, outcome))
    _end(engine, judged)
    if not ok:
        raise typer.Exit(1)


def _judge_engine(model: str | None, bench_dir: Path, api_base: str | None, **options: Any
                  ) -> Any:
    """The judge's engine (None without ``--judge-model``); bad values are usage errors that
    name the flag, raised before any call."""
    from irforge.core.errors import IrforgeError

    if model is None:
        if api_base is not None:
            raise IrforgeError("--api-base is only used with --judge-model: give the judge's "
                               "model too (e.g. --judge-model openai/NAME --api-base URL)")
        return None
    if not model.strip():
        raise IrforgeError(f"--judge-model {model!r}: give a model id (e.g. openai/gpt-4o-mini, "
                           "gguf:/path/model.gguf or embedded)")
    from irforge.llm.options import engine_from_options

    try:
        return engine_from_options(model=model, api_base=api_base, bench_dir=bench_dir,
                                   prompts_dir=None, **options)
    except IrforgeError as exc:
        raise IrforgeError(f"--judge-model {model}: {exc}") from exc


def _judge(engine: Any, reports: list) -> dict[str, Any]:
    """The answer judge on every folder whose files load; its problems join the folder's."""
    from irforge.core.errors import FormatError
    from irforge.generators.answer_judge.judge import VALIDATOR, judge_benchmark

    out: dict[str, Any] = {}
    for name, report in reports:
        try:
            outcome = judge_benchmark(engine, report.root, report.audit.invalid)
        except FormatError as exc:
            out[name] = f"not judged: {exc} (see the problems above)"
            continue
        for problem in outcome.problems:
            report.problems.append(problem)
            report.audit.invalid.add(problem.query_id)
            report.audit.by_validator[VALIDATOR] += 1
        report.counts["judge_flagged"] = len(outcome.problems)
        out[name] = outcome
    return out


def _judge_text(name: str, outcome: Any) -> str:
    from irforge.steps.judge_report import control_summary

    if isinstance(outcome, str):
        return f"judge {name}: {outcome}"
    said_no = sum(1 for v in outcome.verdicts.values() if v.answers == "no")
    head = (f"answer judge on {name}: {outcome.judged} queries judged, {said_no} not answered "
            f"by their passage(s), {outcome.unanswered} without a verdict")
    if outcome.status == "trusted":
        tail = f"; {len(outcome.problems)} flagged as judge.answers"
    else:
        tail = (f"; its verdicts flag nothing: the judge is "
                f"{'UNTRUSTED' if outcome.status == 'untrusted' else 'NOT VERIFIED'}")
    return f"{head}{tail}\n{control_summary(outcome.entry, outcome.controls)}"


def _judge_json(outcome: Any) -> dict[str, Any]:
    if isinstance(outcome, str):
        return {"status": "not judged", "reason": outcome}
    return {"status": outcome.status, "judged": outcome.judged, "controls": outcome.controls,
            "unanswered": outcome.unanswered, "flagged": len(outcome.problems),
            "not_answered": sorted(q for q, v in outcome.verdicts.items()
                                   if v.answers == "no"),
            "entry": outcome.entry}


def _end(engine: Any, judged: dict[str, Any]) -> None:
    """A budget stop or all-calls-failed ends first (exit 4 / 5), then an untrusted judge
    (exit 8); the lexical problems' exit 1 comes after."""
    if engine is None:
        return
    from irforge.core.errors import UntrustedLabels
    from irforge.core.layouts.check import LAYOUT
    from irforge.llm.options import raise_for_stop

    raise_for_stop(engine)
    failed = [name for name, outcome in judged.items()
              if not isinstance(outcome, str) and outcome.status == "untrusted"]
    if failed:
        lines = "\n  ".join(line for name in failed for line in judged[name].entry["lines"])
        raise UntrustedLabels(
            f"the answer judge failed its control items on {', '.join(failed)}, so its "
            f"verdicts flag nothing (judge_controls.json, entry check.answers):\n  {lines}\n"
            f"fix: use a stronger --judge-model, or read {LAYOUT.relative('controls')}")
