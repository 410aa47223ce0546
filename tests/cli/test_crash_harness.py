"""kill -9 at every write of every writing verb: the folder holds the old files or the new ones.

Each case builds a folder in its previous state, runs the verb once cleanly (counting its
writes with ``IRFORGE_KILL_AT_WRITE=count`` and warming the LLM cache, so later runs send
nothing), then, for every write N, runs it on a fresh copy of the previous state with
``IRFORGE_KILL_AT_WRITE=N`` (SIGKILL just before the Nth rename, append or removal; an append
is cut in half first). After the recovery the next writer makes (``rollback``), the folder
must equal the previous state or the clean run's; then a re-run must reach the clean run's
state (checked after the last two kills). The quick run (CI runs it) kills each verb at its
middle write; the exhaustive run (``IRFORGE_CRASH_EVERY_WRITE=1``) at every write.
:data:`COVERED` and :data:`WITHOUT_CASE` list every writing verb: a new one fails a test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from irforge.annotation.files import export_tasks, import_tasks
from irforge.annotation.labeling import get_job
from irforge.cli.app import COMMANDS
from irforge.cli.writers import WRITERS
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.generation import UNJOURNALED, rollback
from irforge.core.records import Doc, Qrel
from irforge.data.sample import write_seed_benchmark
from irforge.testing.scripted import Script, ScriptedServer
from tests.annotation.helpers import relevance_bench
from tests.annotation.test_files_and_merge import _annotate
from tests.generators.instructions.test_cli import pairs as instruction_pairs
from tests.generators.instructions.test_cli import script as instructions_script
from tests.generators.intents.test_scenario import BREAD
from tests.generators.intents.test_scenario import _script as intents_script
from tests.generators.multicon.docs import NOVEL
from tests.generators.multicon.test_http import FERRY
from tests.generators.multicon.test_http import _script as multicon_script
from tests.recipe.test_run_all_methods import FILMS, PLAYS, good_script

ROOT = Path(__file__).resolve().parents[2]
# keys whose values change from run to run (clocks, durations): not part of the state
VOLATILE = ("created", "updated", "finished", "started", "seconds", "time", "date", "python",
            "elapsed", "duration", "took")
DURATION = re.compile(rb"\d+\.\d+ ?s\b")
# counters of what one invocation did itself (a resumed corpus build extracts nothing anew):
# left out only where a re-run after a kill is compared with the clean run
ACTIVITY = "newly_"
# a clock in a file name or value (annotation/exports/file-20260101T000000-export.json)
STAMP = re.compile(r"\d{8}T\d{6}")
# what a case folder holds besides the verb's output: its inputs
INPUTS = ("input.jsonl", "input")


LLM = ["--model", "openai/scripted", "--cache", "../cache.sqlite"]


@dataclass(frozen=True)
class Case:
    """A verb (argv relative to the case folder), how to make its previous state, and the
    folders it writes (each recovered like the next writer would)."""

    verb: list[str]
    setup: Callable[[Path, Callable[[list[str]], subprocess.CompletedProcess[str]]], None]
    writes: tuple[str, ...] = ("bench",)
    script: Script | None = None


def _seed(folder: Path, run: Any) -> None:
    write_seed_benchmark(folder / "bench")


def _novel_corpus(folder: Path, run: Any) -> None:
    _seed(folder, run)  # the seed benchmark the build replaces (issue 37: it was emptied)
    beir.write_corpus(folder / "input.jsonl", [Doc("salt", NOVEL, "The Salt Orchard"),
                                               Doc("ferry", FERRY, "The Quiet Ferry")])


def _intents_built(folder: Path, run: Any) -> None:
    beir.write_corpus(folder / "input.jsonl",
                      [Doc(key, text, title) for key, title, text, _, _ in BREAD])
    done = run(["build", "intents", "bench", "--corpus", "input.jsonl", "--intents", "QA",
                "--per-task", "2", *LLM])
    assert done.returncode == 0, done.stdout + done.stderr


def _seeded_with(docs: list[Doc]) -> Callable[[Path, Any], None]:
    """The seed benchmark the build adds to, and ``docs`` as its input corpus."""

    def setup(folder: Path, run: Any) -> None:
        _seed(folder, run)
        beir.write_corpus(folder / "input.jsonl", docs)

    return setup


def _instruction_pairs(folder: Path, run: Any) -> None:
    _seed(folder, run)
    (folder / "input").mkdir()
    instruction_pairs(folder / "input" / "pairs.jsonl")


def _documents(folder: Path, run: Any) -> None:
    """Six short documents to build a first corpus from (a re-build with other documents or
    settings is refused until ``corpus <stage> --fresh``)."""
    (folder / "input").mkdir()
    for number in range(6):
        (folder / "input" / f"doc{number}.txt").write_text(
            f"Report {number}\n\nRiver levels rose by {number} metres during the storm. "
            f"Crews opened shelter number {number} near the bridge for the night.\n",
            encoding="utf-8")


def _annotated(folder: Path, run: Any) -> None:
    """A labelled benchmark and people's answers to its tasks (input/export.json)."""
    bench = relevance_bench(folder / "bench", queries=6)
    bench.write_qrels([Qrel(f"q{i}", f"d{i}", 1) for i in range(6)])  # the LLM's split
    job = get_job("relevance")
    tasks = export_tasks(bench, job, folder / "input" / "tasks.json", n=4, seed=1,
                         show_predictions=True)
    people = {"ann": job.choice_for(0), "bob": job.choice_for(2)}
    (folder / "input" / "export.json").write_text(
        json.dumps(_annotate(json.loads(tasks.tasks.read_text(encoding="utf-8")), job, people)),
        encoding="utf-8")


def _imported(folder: Path, run: Any) -> None:
    """The annotated benchmark with people's labels already imported."""
    _annotated(folder, run)
    import_tasks(Benchmark(folder / "bench"), get_job("relevance"),
                 folder / "input" / "export.json")


def _evaluated(folder: Path, run: Any) -> None:
    _seed(folder, run)
    done = run(["eval", "bench", "--retriever", "bm25", "--no-plots", "--bootstrap", "50",
                "--trials", "50"])
    assert done.returncode == 0, done.stdout + done.stderr


def _exported(folder: Path, run: Any) -> None:
    _seed(folder, run)
    done = run(["export", "bench", "--format", "hf", "--out", "out"])
    assert done.returncode == 0, done.stdout + done.stderr
    qrels = folder / "bench" / "qrels" / "test.tsv"  # the re-export differs from the first
    qrels.write_text("".join(qrels.read_text(encoding="utf-8").splitlines(True)[:-3]),
                     encoding="utf-8")


def _audited(folder: Path, run: Any) -> None:
    _seed(folder, run)
    (folder / "bench" / "audits").mkdir()
    (folder / "bench" / "audits" / "query_source_overlap.json").write_text('{"old": 1}\n')


CASES: dict[str, Case] = {
    "build multicon": Case(["build", "multicon", "bench", "--corpus", "input.jsonl", "--n", "3",
                            "--domain", "books", "--pad-to", "80", *LLM], _novel_corpus,
                           script=multicon_script()),
    "label": Case(["label", "bench", "--strategies", "zero_shot", *LLM], _intents_built,
                  script=intents_script(good=True)),
    "eval --replace": Case(["eval", "bench", "--retriever", "bm25:atire", "--replace",
                            "--no-plots", "--bootstrap", "50", "--trials", "50"], _evaluated),
    "export (again)": Case(["export", "bench", "--format", "hf", "--out", "out"], _exported,
                           writes=("out",)),
    "export (new folder)": Case(["export", "bench", "--format", "trec", "--out", "out"], _seed,
                                writes=("out",)),
    "audit overlap": Case(["audit", "overlap", "bench"], _audited),
    "build intents": Case(["build", "intents", "bench", "--corpus", "input.jsonl", "--intents",
                           "QA", "--per-task", "2", *LLM],
                          _seeded_with([Doc(key, text, title)
                                        for key, title, text, _, _ in BREAD]),
                          script=intents_script(good=True)),
    "build logical": Case(["build", "logical", "bench", "--corpus", "input.jsonl", "--types",
                           "2in", "--per-type", "2", "--passage-sentences", "0", *LLM],
                          _seeded_with([Doc("films", FILMS, "Lena Ortiz filmography"),
                                        Doc("plays", PLAYS, "Harwick Playhouse programme")]),
                          script=good_script()),
    "build instructions": Case(["build", "instructions", "bench", "--pairs",
                                "input/pairs.jsonl", *LLM], _instruction_pairs,
                               script=instructions_script()),
    "corpus build": Case(["corpus", "build", "bench", "--input", "input", "--tokenizer",
                          "words", "--skip-passage-dedup"], _documents),
    "corpus pool": Case(["corpus", "pool", "bench", "--retriever", "bm25", "--k", "3"], _seed),
    "qrels merge": Case(["qrels", "merge", "bench"], _imported),
    "annotate import-tasks": Case(["annotate", "import-tasks", "bench", "input/export.json"],
                                  _annotated),
    "annotate export-tasks": Case(["annotate", "export-tasks", "bench", "--out",
                                   "bench/annotation/tasks.json", "--n", "4"], _annotated),
    "audit agreement": Case(["audit", "agreement", "bench", "--resamples", "50"], _imported),
    "audit duplicates": Case(["audit", "duplicates", "bench"], _audited),
}


#: every verb that writes files (irforge/cli/app.py COMMANDS; the writers of irforge/cli/writers.py
#: and the helpers of irforge/core/generation.py, jsonl.py and bench.py they call) -> the
#: harness cases that kill it. A new writing verb fails
#: test_every_writing_verb_has_a_harness_case until it gets a case (or a reason below).
COVERED: dict[tuple[str | None, str], tuple[str, ...]] = {
    (None, "label"): ("label",),
    (None, "eval"): ("eval --replace",),
    (None, "export"): ("export (again)", "export (new folder)"),
    ("build", "intents"): ("build intents",),
    ("build", "logical"): ("build logical",),
    ("build", "multicon"): ("build multicon",),
    ("build", "instructions"): ("build instructions",),
    ("corpus", "build"): ("corpus build",),
    ("corpus", "pool"): ("corpus pool",),
    ("qrels", "merge"): ("qrels merge",),
    ("annotate", "import-tasks"): ("annotate import-tasks",),
    ("annotate", "export-tasks"): ("annotate export-tasks",),
    ("audit", "agreement"): ("audit agreement",),
    ("audit", "duplicates"): ("audit duplicates",),
    ("audit", "overlap"): ("audit overlap",),
}
#: writing verbs without a case of their own, and why a kill cannot leave them mixed
WITHOUT_CASE: dict[tuple[str | None, str], str] = {
    (None, "run"): "runs the verbs above, one generation per stage (a kill loses the stage in "
                   "flight; the re-run resumes); no kill case yet: a recipe run costs a minute",
    ("corpus", "collect"): "a stage of corpus build (its case); needs URLs or a search API",
    ("corpus", "extract"): "a stage of corpus build, the same code under the same generation",
    ("corpus", "dedup"): "a stage of corpus build, the same code under the same generation",
    ("corpus", "chunk"): "a stage of corpus build, the same code under the same generation",
    ("corpus", "dedup-passages"): "a stage of corpus build; needs an embedding model",
    ("corpus", "write"): "a stage of corpus build, the same code under the same generation",
    ("annotate", "pull"): "needs a Label Studio server; writes its snapshot, then runs the "
                          "ingest() that annotate import-tasks runs (its case)",
    ("annotate", "push"): "needs a Label Studio server; keeps the project registry at once "
                          "(a server-side project no rollback undoes), so a re-run reuses it",
    ("build", "instructions-review"): "one file (instructions/review.jsonl) renamed into place",
    (None, "view"): "one file (the explorer's HTML) renamed into place",
    ("audit", "rankings"): "one file (--out) renamed into place, only when asked",
    ("recipe", "init"): "one file (the recipe) renamed into place",
    (None, "demo"): "writes only its own sample folder (--out), stage by stage through the "
                    "code the build, label and eval cases kill; not one generation",
    ("cache", "clear"): "the LLM cache only (one SQLite transaction), no benchmark file",
}
#: verbs that write no file
READ_ONLY = frozenset({(None, "check"), (None, "version"), (None, "completion"),
                       ("llm", "try"), ("cache", "stats"), ("prompts", "list"),
                       ("prompts", "show"), ("prompts", "lint"), ("annotate", "status"),
                       ("audit", "pool")})


def _stable(value: Any) -> Any:
    """``value`` without the keys that hold clocks or durations, and clocks in its text."""
    if isinstance(value, dict):
        return {key: _stable(item) for key, item in value.items()
                if not any(word in str(key).lower() for word in VOLATILE)}
    if isinstance(value, list):
        return [_stable(item) for item in value]
    return STAMP.sub("#", value) if isinstance(value, str) else value


def _resumed(state: Any) -> Any:
    """``state`` without the counters of what one invocation did itself (:data:`ACTIVITY`)."""
    if isinstance(state, dict):
        return {key: _resumed(item) for key, item in state.items()
                if not str(key).startswith(ACTIVITY)}
    if isinstance(state, list):
        return [_resumed(item) for item in state]
    return state


def _state(folder: Path) -> dict[str, Any]:
    """Every file a verb commits under ``folder``: caches, locks and resumable work (the
    folders a generation does not journal, irforge/core/generation.py) and inputs left out."""
    files: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if not path.is_file() or UNJOURNALED.intersection(rel.parts) or rel.parts[0] in INPUTS:
            continue
        data = path.read_bytes()
        if path.suffix in (".md", ".html"):  # reports print durations ("index 0.10s")
            data = DURATION.sub(b"#s", data)
        key = STAMP.sub("#", rel.as_posix())
        files[key] = _stable(json.loads(data)) if path.suffix == ".json" else \
            STAMP.sub("#", data.decode("utf-8", "surrogateescape")).encode(
                "utf-8", "surrogateescape")
    return files


def _runner(folder: Path, server: ScriptedServer | None, kill: str = ""
            ) -> Callable[[list[str]], subprocess.CompletedProcess[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IRFORGE_KILL_AT_WRITE": kill,
           "IRFORGE_API_KEY": ""}

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        extra = ["--api-base", server.url] if server is not None and "--model" in argv else []
        return subprocess.run([sys.executable, "-m", "irforge", *argv, *extra], cwd=folder,
                              env=env, capture_output=True, text=True, timeout=300)

    return run


def _recover(folder: Path, case: Case) -> None:
    for name in case.writes:
        if (folder / name).is_dir():
            rollback(folder / name)


def _kill_points(writes: int, every: bool) -> list[int]:
    """Every write, or the middle one (the quick run)."""
    return list(range(1, writes + 1)) if every else [writes // 2 + 1]


#: the exhaustive sweep (a subprocess per write of every verb) runs on request:
#: IRFORGE_CRASH_EVERY_WRITE=1 make test PYTEST_ARGS="tests/cli/test_crash_harness.py"
EVERY_WRITE = pytest.mark.skipif(not os.environ.get("IRFORGE_CRASH_EVERY_WRITE"),
                                 reason="the every-write sweep runs with "
                                        "IRFORGE_CRASH_EVERY_WRITE=1 (tens of minutes)")


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=[pytest.mark.slow,
                                                                      EVERY_WRITE])],
                         ids=["sampled", "every-write"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_kill_at_every_write_leaves_the_old_or_the_new_state(tmp_path: Path, name: str,
                                                               every: bool) -> None:
    case = CASES[name]
    server = ScriptedServer(case.script) if case.script is not None else None
    with server if server is not None else nullcontext():
        before = tmp_path / "before"
        before.mkdir()
        case.setup(before, _runner(before, server))
        old = _state(before)
        if server is not None:  # every later run finds its answers cached, as a re-run does
            shutil.copytree(before, tmp_path / "warm", symlinks=True)
            _runner(tmp_path / "warm", server)(case.verb)
            shutil.rmtree(tmp_path / "warm")
        clean = tmp_path / "clean"
        shutil.copytree(before, clean, symlinks=True)
        counted = _runner(clean, server, "count")(case.verb)
        assert counted.returncode in (0, 8), counted.stdout + counted.stderr
        writes = int(counted.stderr.rsplit("irforge-write-points:", 1)[1].split()[0])
        new = _state(clean)
        assert new != old and writes >= 1
        points = _kill_points(writes, every)
        for kill_at in points:
            folder = tmp_path / f"kill{kill_at}"
            shutil.copytree(before, folder, symlinks=True)
            killed = _runner(folder, server, str(kill_at))(case.verb)
            assert killed.returncode == -9, (kill_at, killed.stdout + killed.stderr)
            _recover(folder, case)
            state = _state(folder)
            assert state in (old, new), f"{name}: kill at write {kill_at} of {writes} left a mix"
            if kill_at in points[-2:]:  # the re-run continues to the clean run's state
                rerun = _runner(folder, server)(case.verb)
                assert rerun.returncode == counted.returncode, rerun.stdout + rerun.stderr
                assert _resumed(_state(folder)) == _resumed(new), \
                    f"{name}: the re-run after kill {kill_at} differs"
            shutil.rmtree(folder)


def test_every_writing_verb_has_a_harness_case() -> None:
    verbs = {(group, name) for group, name, _ in COMMANDS}
    assert set(COVERED) | set(WITHOUT_CASE) | READ_ONLY == verbs, \
        "a verb is new: give it a harness case (COVERED) or say why it needs none"
    assert not set(COVERED) & set(WITHOUT_CASE) and not READ_ONLY & (set(COVERED) |
                                                                      set(WITHOUT_CASE))
    assert set(WRITERS) <= set(COVERED) | set(WITHOUT_CASE), "a locked verb writes"
    assert sorted(case for cases in COVERED.values() for case in cases) == sorted(CASES)
