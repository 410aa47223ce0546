"""``irforge annotate push|pull|status``: human-in-the-loop rounds in Label Studio."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.output import JsonOption, emit
from irforge.core.collection import Collection, benchmark_folders, for_each
from irforge.core.errors import IrforgeError

BenchDir = Annotated[Path, typer.Argument(
    help="Benchmark folder, or a run folder (every method folder in it).", file_okay=False)]
OneBenchDir = Annotated[Path, typer.Argument(help="Benchmark folder.", file_okay=False)]
Job = Annotated[str, typer.Option(help="Labeling job: relevance, sts, logical_structure, "
                                  "evidence_distribution, hard_negative, "
                                  "instruction_compliance (or any name with --config-file).")]
Project = Annotated[int | None, typer.Option(help="Label Studio project id (default: the one "
                                             "recorded in annotation/projects.json).")]
Url = Annotated[str | None, typer.Option(help="Server URL (default: LABEL_STUDIO_URL).")]
ConfigFile = Annotated[Path | None, typer.Option(help="YAML/JSON with url and api_key.")]
LabelConfig = Annotated[Path | None, typer.Option(help="Your own Label Studio XML config.")]
LabelControl = Annotated[str | None, typer.Option(help="Choices control that carries the label "
                                                  "(user configs).")]
SampleSize = Annotated[int, typer.Option("--n", help="How many items to sample.")]
ShowPredictions = Annotated[bool, typer.Option(
    "--show-predictions", help="Import the LLM labels as predictions (a review round); by "
    "default they are left out so no answer is preselected.")]
Gold = Annotated[bool, typer.Option(
    "--gold/--no-gold", help="Mix the job's gold items (known answers) in with the tasks; "
    "`audit agreement` scores each annotator on them.")]
GoldShare = Annotated[float, typer.Option(
    "--gold-share", help="Share of a round's tasks that are gold (0 to 0.5; rounded to whole "
    "tasks, never above the share + 0.05, never more than the real tasks).")]
Strategy = Annotated[str, typer.Option(help="random, stratified, disagreement or "
                                       "low-confidence.")]
StratifyBy = Annotated[str | None, typer.Option(help="Stratum key for stratified sampling: "
                                                "intent, type or label.")]
Seed = Annotated[int, typer.Option(help="Sampling seed.")]
TieBreak = Annotated[str, typer.Option(help="Tie-break among annotators: median, lower, "
                                       "higher or first.")]
HumanSplit = Annotated[str, typer.Option(help="Write adjudicated qrels to qrels/SPLIT.tsv.")]


@contextmanager
def _user_errors() -> Iterator[None]:
    """Show bad option values (unknown strategy, tie-break...) as errors, not tracebacks."""
    try:
        yield
    except IrforgeError:
        raise
    except ValueError as exc:
        raise IrforgeError(str(exc)) from exc


def _folders(bench_dir: Path, project: int | None = None, what: str = "") -> Collection:
    """The benchmark folders a verb acts on; one project id or one export file cannot serve
    several folders of a run."""
    found = benchmark_folders(bench_dir)
    if found.is_collection and (project is not None or what):
        names = ", ".join(found.name(f) for f in found.folders)
        reason = what or "--project names one Label Studio project"
        raise IrforgeError(f"{bench_dir} is a run folder with {len(found.folders)} benchmarks "
                           f"({names}); {reason}: pass one of them, e.g. "
                           f"{found.folders[0]}")
    return found


def _each(found: Collection, action) -> None:
    """Run ``action(name, folder)`` on every folder, then report the folders that failed."""
    outcomes = for_each(found, lambda name, folder: action(
        f"{name}: " if found.is_collection else "", folder))
    outcomes.raise_if_failed()


def _job(name: str, config_file: Path | None, label_control: str | None):
    from irforge.annotation.labeling import get_job

    return get_job(name, config_file, label_control)


def _connect(url: str | None, settings_file: Path | None):
    from irforge.annotation.connection import connect, load_settings

    return connect(load_settings(url=url, config_file=settings_file))


def push(
    bench_dir: BenchDir,
    job: Job = "relevance",
    n: SampleSize = 50,
    strategy: Strategy = "random",
    by: StratifyBy = None,
    seed: Seed = 0,
    threshold: Annotated[float, typer.Option(help="Binarization threshold used by the label "
                                             "stratum and the confidence proxy.")] = 0.0,
    project: Project = None,
    title: Annotated[str | None, typer.Option(help="Title of a new project.")] = None,
    annotators: Annotated[int, typer.Option(
        "--annotators", help="People who label each task (overlap of a new project; 2 or "
        "more gives inter-annotator agreement in `audit agreement`).")] = 1,
    show_predictions: ShowPredictions = False,
    gold: Gold = True,
    gold_share: GoldShare = 0.15,
    config_file: LabelConfig = None,
    label_control: LabelControl = None,
    url: Url = None,
    settings: ConfigFile = None,
) -> None:
    """Sample items and import them as tasks, with the job's guidelines (idempotent)."""
    from irforge.annotation.labeling import get_job
    from irforge.annotation.push import push as run_push
    from irforge.core.bench import Benchmark

    labeling = get_job(job, config_file, label_control)
    connection = _connect(url, settings)

    def one(prefix: str, folder: Path) -> None:
        named = f"{title} ({prefix.rstrip(': ')})" if title and prefix else title
        with _user_errors():
            result = run_push(Benchmark(folder), labeling, connection, n, strategy, seed, by,
                              threshold, project, named, annotators=annotators,
                              show_predictions=show_predictions, gold=gold,
                              gold_share=gold_share)
        created = "created" if result.created_project else "reused"
        typer.echo(f"{prefix}project {result.project_id} ({created}) at "
                   f"{connection.settings.base_url}: {result.tasks} tasks ({result.sampled} "
                   f"real + {result.gold} gold; the real ones sampled with {strategy} from "
                   f"{result.candidates} items), imported {result.imported}, already there "
                   f"{result.already_there}")

    _each(_folders(bench_dir, project), one)


def pull(
    bench_dir: BenchDir,
    job: Job = "relevance",
    project: Project = None,
    tie_break: TieBreak = "median",
    split: HumanSplit = "human",
    method: Annotated[str, typer.Option(help="export (snapshot with full predictions) or tasks "
                                        "(paginated task list).")] = "export",
    config_file: LabelConfig = None,
    label_control: LabelControl = None,
    url: Url = None,
    settings: ConfigFile = None,
) -> None:
    """Export annotations, append them to judgments.jsonl, adjudicate and write human qrels."""
    from irforge.annotation.labeling import get_job
    from irforge.annotation.projects import project_for
    from irforge.annotation.pull import pull as run_pull
    from irforge.core.bench import Benchmark

    labeling = get_job(job, config_file, label_control)

    def one(prefix: str, folder: Path) -> None:
        bench = Benchmark(folder)
        project_id = project_for(bench, labeling.name, project)
        with _user_errors():
            result = run_pull(bench, labeling, _connect(url, settings), project_id, tie_break,
                              split, method)
        typer.echo(f"{prefix}project {project_id}: {result.counts()}, {result.new_labels} "
                   f"new human labels ({result.unchanged} already pulled), {result.invalid} "
                   f"invalid answers (see failures.jsonl), {result.adjudicated} adjudicated "
                   f"items; snapshot {result.snapshot}"
                   + (f"; wrote {result.qrels_path}" if result.qrels_path else ""))

    _each(_folders(bench_dir, project), one)


def status(
    bench_dir: BenchDir,
    job: Job = "relevance",
    project: Project = None,
    url: Url = None,
    settings: ConfigFile = None,
) -> None:
    """Progress per stratum: tasks, annotated tasks and annotations."""
    from rich.table import Table

    from irforge.annotation.gold import gold_keys
    from irforge.annotation.projects import project_for
    from irforge.annotation.status import project_progress
    from irforge.cli.output import table_console
    from irforge.core.bench import Benchmark

    def one(prefix: str, folder: Path) -> None:
        bench = Benchmark(folder)
        project_id = project_for(bench, job, project)
        rows = project_progress(_connect(url, settings), project_id, gold_keys(bench))
        real, gold_row = rows[1], rows[2]
        typer.echo(f"{prefix}project {project_id}: {real.tasks + gold_row.tasks} tasks "
                   f"({real.tasks} real + {gold_row.tasks} gold); {real.annotated} real and "
                   f"{gold_row.annotated} gold annotated")
        table = Table(title=f"{prefix}Label Studio project {project_id} ({job})")
        for name in ("stratum", "value", "tasks", "annotated", "done", "annotations"):
            table.add_column(name)
        for row in rows:
            table.add_row(row.stratum, row.value, str(row.tasks), str(row.annotated),
                          f"{row.share:.0%}", str(row.annotations))
        table_console().print(table)

    _each(_folders(bench_dir, project), one)


def export_tasks(
    bench_dir: BenchDir,
    out: Annotated[Path, typer.Option("--out", "-o", help="Tasks file to write (JSON); the "
                                      "labeling config goes next to it as .xml. For a run "
                                      "folder: OUT-<method>.json per method folder.")],
    job: Job = "relevance",
    n: SampleSize = 50,
    strategy: Strategy = "random",
    by: StratifyBy = None,
    seed: Seed = 0,
    show_predictions: ShowPredictions = False,
    gold: Gold = True,
    gold_share: GoldShare = 0.15,
    config_file: LabelConfig = None,
    label_control: LabelControl = None,
    as_json: JsonOption = False,
) -> None:
    """Write Label Studio tasks and the config (with guidelines) to files: no server."""
    from irforge.annotation.files import export_tasks as run_export
    from irforge.core.bench import Benchmark

    found = _folders(bench_dir)
    labeling = _job(job, config_file, label_control)

    def one(prefix: str, folder: Path) -> None:
        name = found.name(folder).replace("/", "-")
        target = out.with_name(f"{out.stem}-{name}{out.suffix}") if prefix else out
        with _user_errors():
            result = run_export(Benchmark(folder), labeling, target, n, strategy, seed, by,
                                show_predictions=show_predictions, gold=gold,
                                gold_share=gold_share)
        emit({"folder": folder, "tasks": result.tasks, "config": result.config,
              "count": result.count, "sampled": result.sampled, "gold": result.gold,
              "candidates": result.candidates},
             f"{prefix}wrote {result.count} tasks ({result.sampled} real + {result.gold} "
             f"gold) for {result.candidates} candidate items to {result.tasks} "
             f"and the labeling config to {result.config}: in Label Studio create a project "
             f"with that config, import the tasks, annotate, Export > JSON, then run `irforge "
             f"annotate import-tasks {folder} EXPORT.json`", as_json)

    _each(found, one)


def import_tasks(
    bench_dir: BenchDir,
    export_file: Annotated[Path, typer.Argument(help="Label Studio JSON export (Export > JSON).",
                                                dir_okay=False)],
    job: Job = "relevance",
    tie_break: TieBreak = "median",
    split: HumanSplit = "human",
    config_file: LabelConfig = None,
    label_control: LabelControl = None,
    as_json: JsonOption = False,
) -> None:
    """Read annotated tasks from a Label Studio export file, as `annotate pull` does."""
    from irforge.annotation.files import import_tasks as run_import
    from irforge.core.bench import Benchmark

    _folders(bench_dir, what="one Label Studio export holds one folder's tasks")
    with _user_errors():
        result = run_import(Benchmark(bench_dir), _job(job, config_file, label_control),
                            export_file, tie_break, split)
    emit({"tasks": result.tasks, "gold": result.gold, "new_labels": result.new_labels,
          "unchanged": result.unchanged,
          "invalid": result.invalid, "adjudicated": result.adjudicated,
          "qrels": result.qrels_path},
         f"{export_file}: {result.counts()}, {result.new_labels} new human labels "
         f"({result.unchanged} already imported), {result.invalid} invalid answers, "
         f"{result.adjudicated} adjudicated items"
         + (f"; wrote {result.qrels_path}" if result.qrels_path else ""), as_json)


def merge_command(
    bench_dir: OneBenchDir,
    base: Annotated[str, typer.Option(help="LLM qrels split to start from.")] = "test",
    out: Annotated[str, typer.Option(help="Split to write: qrels/OUT.tsv.")] = "adjudicated",
    policy: Annotated[str, typer.Option(help="human-wins (people override the LLM, the rest "
                                        "kept) or human-only.")] = "human-wins",
    task: Annotated[str, typer.Option(help="Judgment task of the human labels.")]
    = "relevance",
    tie_break: TieBreak = "median",
    as_json: JsonOption = False,
) -> None:
    """Write adjudicated qrels (LLM + human labels) with a provenance row per pair."""
    from irforge.annotation.merge import merge_qrels
    from irforge.core.bench import Benchmark

    with _user_errors():
        result = merge_qrels(Benchmark(bench_dir), base, out, policy, task, tie_break)
    emit({"qrels": result.qrels, "provenance": result.provenance, "total": result.total,
          "from_human": result.from_human, "from_llm": result.from_llm,
          "changed": result.changed},
         f"wrote {result.qrels}: {result.total} qrels ({result.from_human} from people, "
         f"{result.changed} of them changed an LLM grade; {result.from_llm} from the LLM); "
         f"provenance in {result.provenance}. Score it: irforge eval {bench_dir} --qrels {out}",
         as_json)
