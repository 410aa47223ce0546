"""The ``irforge`` command line: one typer app; each verb a thin wrapper over a library call.

Verbs live next to the code they drive and are listed in :data:`COMMANDS`, a registry of
``(group, name, "module:function")``. Modules named here must import heavy dependencies
inside their functions so that ``irforge --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from irforge.cli.validate import READS, validated
from irforge.cli.writers import WRITERS, holding_lock
from irforge.core.errors import IrforgeError
from irforge.core.verbosity import set_verbosity

console = Console(stderr=True)

GROUPS: dict[str, str] = {
    "build": "Generate a benchmark with one of the papers' methods.",
    "corpus": "Turn PDFs or text into a deduplicated, chunked BEIR corpus.",
    "llm": "Try models through the LLM engine.",
    "cache": "Inspect or clear the LLM response cache.",
    "prompts": "List and render the prompt templates.",
    "annotate": "Human-in-the-loop rounds in Label Studio.",
    "audit": "Agreement and data audits.",
    "qrels": "Combine LLM and human qrels into the split an evaluation scores.",
    "recipe": "Recipe files for `irforge run`.",
}

# (group or None for top level, verb, "module:function")
COMMANDS: list[tuple[str | None, str, str]] = [
    (None, "check", "irforge.methods.check_cli:check"),
    (None, "version", "irforge.cli.app:version"),
    (None, "completion", "irforge.cli.app:completion"),
    (None, "run", "irforge.recipe.cli:run_command"),
    ("recipe", "init", "irforge.recipe.cli:init_command"),
    (None, "demo", "irforge.demo:demo_command"),
    (None, "eval", "irforge.eval.cli:eval_command"),
    (None, "export", "irforge.export.cli:export_command"),
    (None, "view", "irforge.viewer.cli:view_command"),
    ("qrels", "merge", "irforge.annotation.cli:merge_command"),
    ("annotate", "export-tasks", "irforge.annotation.cli:export_tasks"),
    ("annotate", "import-tasks", "irforge.annotation.cli:import_tasks"),
    ("annotate", "push", "irforge.annotation.cli:push"),
    ("annotate", "pull", "irforge.annotation.cli:pull"),
    ("annotate", "status", "irforge.annotation.cli:status"),
    ("audit", "agreement", "irforge.audits.cli:agreement"),
    ("audit", "rankings", "irforge.audits.cli:rankings"),
    ("audit", "duplicates", "irforge.audits.cli:duplicates"),
    ("audit", "overlap", "irforge.audits.cli:overlap"),
    ("audit", "pool", "irforge.audits.cli:pool"),
    ("build", "instructions", "irforge.generators.instructions.cli:build_command"),
    ("build", "instructions-review", "irforge.generators.instructions.cli:review_command"),
    ("llm", "try", "irforge.llm.cli:llm_try"),
    ("cache", "stats", "irforge.llm.cli:cache_stats"),
    ("cache", "clear", "irforge.llm.cli:cache_clear"),
    ("prompts", "list", "irforge.prompts.cli:prompts_list"),
    ("prompts", "show", "irforge.prompts.cli:prompts_show"),
    ("prompts", "lint", "irforge.methods.cli:prompts_lint"),
    ("build", "logical", "irforge.generators.logical.cli:build_logical_command"),
    ("build", "multicon", "irforge.generators.multicon.cli:build_command"),
    ("corpus", "build", "irforge.corpus.cli:build_command"),
    ("corpus", "collect", "irforge.corpus.cli:collect_command"),
    ("corpus", "extract", "irforge.corpus.cli:extract_command"),
    ("corpus", "dedup", "irforge.corpus.cli:dedup_command"),
    ("corpus", "chunk", "irforge.corpus.cli:chunk_command"),
    ("corpus", "dedup-passages", "irforge.corpus.cli:dedup_passages_command"),
    ("corpus", "write", "irforge.corpus.cli:write_command"),
    ("corpus", "pool", "irforge.corpus.cli:pool_command"),
    ("build", "intents", "irforge.generators.intents.cli:build_intents_command"),
    (None, "label", "irforge.generators.relevance.cli:label_command"),
]


def version() -> None:
    """Print the irforge version."""
    from irforge import __version__

    typer.echo(__version__)


COMPLETION_SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")


def completion(
    shell: Annotated[str, typer.Argument(
        help=f"Shell to print the script for: {', '.join(COMPLETION_SHELLS)}.")],
) -> None:
    """Print the shell completion script for SHELL (add it to your shell's startup file)."""
    from typer.completion import completion_init, get_completion_script

    if shell not in COMPLETION_SHELLS:
        raise IrforgeError(f"no completion for shell {shell!r}; choose one of "
                           f"{', '.join(COMPLETION_SHELLS)} (e.g. `irforge completion bash`)")
    completion_init()
    typer.echo(get_completion_script(prog_name="irforge", complete_var="_IRFORGE_COMPLETE",
                                     shell=shell))


def _resolve(target: str):
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def _show_version(value: bool) -> None:
    if value:
        from irforge import __version__

        typer.echo(f"irforge {__version__}")
        raise typer.Exit(0)


def root(
    version_flag: Annotated[bool, typer.Option(
        "--version", callback=_show_version, is_eager=True,
        help="Print the irforge version and exit.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress bars: print results and errors only.")]
    = False,
    verbose: Annotated[int, typer.Option(
        "--verbose", "-v", count=True, help="Log what irforge does (-vv: debug).")] = 0,
) -> None:
    """Build IR benchmarks with LLMs and humans in the loop."""
    set_verbosity(-1 if quiet else verbose)


def build_app() -> typer.Typer:
    """Assemble the app from the registry."""
    app = typer.Typer(no_args_is_help=True, add_completion=True,
                      help="Build IR benchmarks with LLMs and humans in the loop.")
    app.callback()(root)
    groups = {name: typer.Typer(no_args_is_help=True, help=text) for name, text in GROUPS.items()}
    used: set[str] = set()
    for group, name, target in COMMANDS:
        function = _resolve(target)
        writes = WRITERS.get((group, name))
        if writes is not None:
            function = holding_lock(function, writes)
        # options (and the folder a verb reads) are checked before the lock or any work
        function = validated(function, READS.get((group, name)))
        if group is None:
            app.command(name)(function)
        else:
            groups[group].command(name)(function)
            used.add(group)
    for name, sub in groups.items():
        if name in used:
            app.add_typer(sub, name=name)
    return app


def os_failure(exc: BaseException) -> IrforgeError | None:
    """A full disk or a file where a folder belongs, as a one-line error (None otherwise);
    the verbs check for these up front, this catches what slips past them."""
    from irforge.core.disk import disk_full

    filename = getattr(exc, "filename", None)
    path = filename or "the output folder"
    full = disk_full(exc, Path(str(filename)) if filename else None)
    if full is not None:
        return full
    if isinstance(exc, NotADirectoryError | FileExistsError):
        return IrforgeError(f"{path}: a file is where a folder is needed ({exc.strerror}); "
                            "give a folder path, or move the file away")
    return None


def _usage_error_types() -> tuple[type[BaseException], ...]:
    """Click's exception class and the copy typer vendors as ``typer._click`` (typer >= 0.26)."""
    import click

    types: list[type[BaseException]] = [click.ClickException]
    try:
        from typer._click.exceptions import ClickException as VendoredClickException
    except ImportError:  # typer releases that use click itself
        pass
    else:
        types.append(VendoredClickException)
    return tuple(types)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: known errors and usage errors are printed without a traceback."""
    for stream in (sys.stdout, sys.stderr):  # a file name of any bytes prints as \udcXX
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    app = build_app()
    usage_errors = _usage_error_types()
    try:
        code = app(args=argv, prog_name="irforge", standalone_mode=False)
    except IrforgeError as exc:
        from rich.markup import escape

        # one line per message line, never re-wrapped (logs, CI and terminals alike)
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        console.print("aborted")
        sys.exit(130)
    except usage_errors as exc:
        exc.show()  # type: ignore[attr-defined]
        sys.exit(exc.exit_code)  # type: ignore[attr-defined]
    except Exception as exc:
        known = os_failure(exc)
        if known is None:
            raise
        console.print(f"[red]error:[/red] {known}", highlight=False, soft_wrap=True)
        sys.exit(known.exit_code)
    if isinstance(code, int) and code:
        sys.exit(code)
