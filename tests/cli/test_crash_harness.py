"""kill -9 at every write of every writing verb: the folder holds the old files or the new ones.

Each case builds a folder in its previous state, runs the verb once cleanly (counting its
writes with ``IRFORGE_KILL_AT_WRITE=count`` and warming the LLM cache, so later runs send
nothing), then, for each kill point N, runs it on a fresh copy of the previous state (in the
same folder, so recorded paths agree) with ``IRFORGE_KILL_AT_WRITE=N`` (SIGKILL just before the
Nth rename, append, removal or SQLite commit; an append is cut in half first). After the
recovery the next writer makes (``rollback``, the sweep of a dead writer's temporary file),
the folder must equal the previous state or the clean run's (``irforge run``, one generation
per stage: each file one or the other); then a re-run must reach the clean run's state
(checked after the last two kills). The quick run (CI runs it) kills each verb at its middle
write, or, where a case asks for ``points`` > 1, at that many writes spread evenly from the
first to the last (deterministic; at most ``points``, never every write); the exhaustive run
(``IRFORGE_CRASH_EVERY_WRITE=1``) at every write. Verbs run as children forked from one
process that imported irforge once (tests/cli/verbs_forked.py).
:data:`COVERED` and :data:`WITHOUT_CASE` list every writing verb: a new one fails a test.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from irforge.annotation.files import export_tasks, import_tasks
from irforge.annotation.labeling import get_job
from irforge.annotation.projects import iter_tasks
from irforge.cli.app import COMMANDS
from irforge.cli.writers import WRITERS
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.generation import UNJOURNALED, rollback
from irforge.core.jsonl import sweep_temporaries
from irforge.core.records import Doc, Judgment, Qrel, Run
from irforge.core.trec import write_trec_run
from irforge.corpus.chunk import ChunkSettings
from irforge.data.sample import write_seed_benchmark
from irforge.llm.cache import ResponseCache
from irforge.llm.completion import Completion
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.annotation.helpers import full_result, relevance_bench
from tests.annotation.test_files_and_merge import _annotate
from tests.cli.verbs_forked import ForkedVerbs
from tests.generators.instructions.test_cli import pairs as instruction_pairs
from tests.generators.instructions.test_cli import script as instructions_script
from tests.generators.instructions.test_inputs import _review_bench
from tests.generators.intents.test_scenario import BREAD
from tests.generators.intents.test_scenario import _script as intents_script
from tests.generators.multicon.docs import NOVEL
from tests.generators.multicon.test_http import FERRY
from tests.generators.multicon.test_http import _script as multicon_script
from tests.label_studio_server import started_label_studio
from tests.recipe.test_run_all_methods import FILMS, PLAYS, good_script

ROOT = Path(__file__).resolve().parents[2]
# keys whose values change from run to run (clocks, durations): not part of the state
VOLATILE = ("created", "updated", "finished", "started", "seconds", "time", "date", "python",
            "elapsed", "duration", "took")
DURATION = re.compile(rb"\d+\.\d+ ?s\b")
# counters of what one invocation did itself (a resumed corpus build extracts nothing anew):
# left out only where a re-run after a kill is compared with the clean run
ACTIVITY = "newly_"
RESUMED_STAGE = b"| done-earlier |"
# a clock in a file name or value (annotation/exports/file-20260101T000000-export.json)
STAMP = re.compile(r"\d{8}T\d{6}")
# what a case folder holds besides the verb's output: its inputs
INPUTS = ("input.jsonl", "input")
# what irforge run records after each stage (read as JSON, so never torn): the re-run checks it
STAGE_PROGRESS = frozenset({"bench/manifest.json"})
# what SQLite keeps beside a database while it is open (its state is the database's rows)
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


LLM = ["--model", "openai/scripted", "--cache", "../cache.sqlite"]


@dataclass(frozen=True)
class Case:
    """A verb (argv relative to the case folder), how to make its previous state, and the
    folders it writes (each recovered like the next writer would)."""

    verb: list[str]
    setup: Callable[[Path, Callable[[list[str]], subprocess.CompletedProcess[str]]], None]
    writes: tuple[str, ...] = ("bench",)
    script: Script | None = None
    #: kill points of the quick run, spread over the writes (first, last, evenly between)
    points: int = 1
    #: the verb commits one generation per stage (irforge run): a kill keeps the stages
    #: before it, so each file must be the previous one or the clean run's (no torn file, no
    #: temporary; the manifest records the stages done so far), and the re-run must reach
    #: the clean run's state
    stages: bool = False
    #: the LLM cache the verb keeps in its own folder, carried from the warm run
    cache: str = ""
    #: documents served as PDFs on 127.0.0.1 while the case runs, listed in input/urls.txt
    pages: tuple[str, ...] = ()
    #: the verb talks to the module's Label Studio (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY)
    label_studio: bool = False
    #: what the server holds for the folder (compared between the clean run and a re-run)
    remote: Callable[[Path], Any] | None = None


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


def _labelled(folder: Path, run: Any) -> None:
    """A benchmark with three prompts' LLM labels on six pairs, not yet pushed."""
    relevance_bench(folder / "bench", queries=6)


def _pushed(folder: Path, run: Any) -> None:
    """The labelled benchmark pushed to Label Studio, each task answered by the admin."""
    from irforge.annotation.connection import connect

    _labelled(folder, run)
    done = run(PUSH)
    assert done.returncode == 0, done.stdout + done.stderr
    connection = connect()
    project = json.loads((folder / "bench" / "annotation" / "projects.json").read_text(
        encoding="utf-8"))["relevance"]["project_id"]
    job = get_job("relevance")
    for number, task in enumerate(sorted(iter_tasks(connection, project), key=lambda t: t["id"])):
        connection.client.annotations.create(id=task["id"], result=full_result(job, number % 4))


def _project_tasks(folder: Path) -> dict[str, Any]:
    """The pushed project's task keys (a duplicated task shows twice) and how many projects
    the server holds."""
    from irforge.annotation.connection import connect

    connection = connect()
    registry = folder / "bench" / "annotation" / "projects.json"
    keys = []
    if registry.is_file():
        entry = json.loads(registry.read_text(encoding="utf-8"))["relevance"]
        keys = sorted(str(task["data"].get("item_key")) for task in
                      iter_tasks(connection, entry["project_id"], fields="task_only"))
    return {"tasks": keys, "projects": len(list(connection.client.projects.list()))}


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


PUSH = ["annotate", "push", "bench", "--n", "4", "--seed", "1", "--show-predictions"]


RECIPE = """corpus: {input: docs, max_tokens: 1024, passage_dedup: false}
model: openai/scripted
methods:
  logical: {types: [2in], per_type: 2, passage_sentences: 0}
eval: {retrievers: [bm25], metrics: [ndcg@10]}
"""


def _recipe(folder: Path, run: Any) -> None:
    """A recipe of one method (logical) over two documents (input/recipe.yaml, input/docs)."""
    (folder / "input" / "docs").mkdir(parents=True)
    for key, title, text in (("films", "Lena Ortiz filmography", FILMS),
                             ("plays", "Harwick Playhouse programme", PLAYS)):
        (folder / "input" / "docs" / f"{key}.txt").write_text(f"{title}\n\n{text}\n",
                                                              encoding="utf-8")
    (folder / "input" / "recipe.yaml").write_text(RECIPE, encoding="utf-8")
    (folder / "bench" / ".irforge").mkdir(parents=True)  # the warm run's cache comes here


def _viewed(folder: Path, run: Any) -> None:
    """The seed benchmark and an explorer page an earlier ``view`` wrote."""
    _seed(folder, run)
    (folder / "bench" / "view").mkdir()
    (folder / "bench" / "view" / "index.html").write_text("<p>old page</p>\n", encoding="utf-8")


def _two_rankings(folder: Path, run: Any) -> None:
    """Two systems' TREC runs over the seed benchmark, its qrels and a copy without the first
    query, and the comparison an earlier ``audit rankings --out`` wrote."""
    _seed(folder, run)
    (folder / "input").mkdir()
    qrels = list(beir.read_qrels(folder / "bench" / "qrels" / "test.tsv"))
    beir.write_qrels(folder / "input" / "b.tsv",
                     [q for q in qrels if q.query_id != qrels[0].query_id])
    docs = [doc.doc_id for doc in beir.read_corpus(folder / "bench" / "corpus.jsonl")]
    for name, order in (("a", docs), ("b", docs[::-1])):
        ranked = {doc: 1.0 / rank for rank, doc in enumerate(order, start=1)}
        write_trec_run(folder / "input" / f"{name}.trec",
                       Run(name, {q.query_id: ranked for q in qrels}))
    (folder / "out").mkdir()
    (folder / "out" / "rankings.json").write_text('{"old": 1}\n', encoding="utf-8")


def _old_recipe(folder: Path, run: Any) -> None:
    (folder / "recipe.yaml").write_text("corpus: {input: docs}\n", encoding="utf-8")


def _review_ready(folder: Path, run: Any) -> None:
    """An instructions benchmark, its LLM judgments and a run that ranks one positive low."""
    bench = _review_bench(folder)
    bench.add_judgments([Judgment("q1-audience-expert", "d1", 1, "llm"),
                         Judgment("q1-audience-expert", "d2", 3, "llm")])
    (folder / "input").mkdir()
    (folder / "input" / "bm25.trec").write_text("q1-audience-expert Q0 d2 1 2.0 bm25\n"
                                                "q1-audience-layman Q0 d2 1 2.0 bm25\n",
                                                encoding="utf-8")


def _cached(folder: Path, run: Any) -> None:
    """An LLM cache with answers of two models."""
    with ResponseCache(folder / "cache.sqlite") as cache:
        for number in range(6):
            cache.put(f"key{number}", ("model-a", "model-b")[number % 2],
                      Completion(f"answer {number}", "stop"), step="label")


def _demo_folder(folder: Path, run: Any) -> None:
    """Nothing yet but the demo folder's cache folder (the warm run's cache comes here)."""
    (folder / "out" / ".irforge").mkdir(parents=True)


def _demo_script() -> Script:
    """Answers that keep the demo's intents queries (tests/demo/test_intents.py); the other
    generators get ``{}`` and keep nothing, as a weak model's would."""
    from irforge.data.sample import sample_docs
    from tests.demo.test_intents import _script as demo_intents_script

    return demo_intents_script([doc for doc in sample_docs()
                                if doc.doc_id[:3] in {f"d0{i}" for i in range(1, 9)}])


def _served(folder: Path, run: Any) -> None:
    """Nothing yet: the case's pages are listed in input/urls.txt (written by the test)."""


def _corpus_after(*stages: str) -> Callable[[Path, Any], None]:
    """The six documents with the corpus ``stages`` already run on them (in-process)."""

    def setup(folder: Path, run: Any) -> None:
        from irforge.corpus import pipeline

        _documents(folder, run)
        config = pipeline.CorpusConfig(chunk=ChunkSettings(tokenizer="words"), workers=1)
        steps = {"extract": lambda: pipeline.run_extract(folder / "bench", config,
                                                         folder / "input"),
                 "dedup": lambda: pipeline.run_dedup(folder / "bench", config),
                 "chunk": lambda: pipeline.run_chunk(folder / "bench", config)}
        for stage in stages:
            steps[stage]()

    return setup


def _judge_script() -> Script:
    """The intents build's answers, and "yes" from the answer judge of ``check``."""
    built = intents_script(good=True)
    judge = Rule("Decide whether the passage(s) after it give that", (Action.answer(
        {"reason": "The passage says so.", "answers": "yes"}),))
    return Script(default=built.default, rules=(judge, *built.rules))


CASES: dict[str, Case] = {
    "check --judge-model": Case(["check", "bench", "--judge-model", "openai/scripted",
                                 "--cache", "../cache.sqlite"], _intents_built,
                                script=_judge_script()),
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
    "annotate push": Case(PUSH, _labelled, label_studio=True, remote=_project_tasks),
    "annotate pull": Case(["annotate", "pull", "bench"], _pushed, label_studio=True),
    "annotate export-tasks": Case(["annotate", "export-tasks", "bench", "--out",
                                   "bench/annotation/tasks.json", "--n", "4"], _annotated),
    "audit agreement": Case(["audit", "agreement", "bench", "--resamples", "50"], _imported),
    "audit duplicates": Case(["audit", "duplicates", "bench"], _audited),
    # killed at its first write and its last (every stage settled: the re-run resumes each;
    # its 28 writes, spread over 8 kills, pass too, in 4 minutes)
    "run": Case(["run", "bench", "--recipe", "input/recipe.yaml"], _recipe,
                writes=("bench/logical", "bench"), script=good_script(), stages=True,
                points=2, cache="bench/.irforge/cache.sqlite"),
    "view": Case(["view", "bench"], _viewed),
    "demo": Case(["demo", "--out", "out", "--model", "openai/scripted"], _demo_folder,
                 writes=("out",), script=_demo_script(), cache="out/.irforge/cache.sqlite"),
    "audit rankings --out": Case(["audit", "rankings", "--runs", "input/a.trec", "--runs",
                                  "input/b.trec", "--qrels-a", "bench/qrels/test.tsv",
                                  "--qrels-b", "input/b.tsv", "--resamples", "50", "--out",
                                  "out/rankings.json"], _two_rankings, writes=()),
    "recipe init --force": Case(["recipe", "init", "recipe.yaml", "--force"], _old_recipe,
                                writes=()),
    "build instructions-review": Case(["build", "instructions-review", "bench", "--run",
                                       "input/bm25.trec", "--rank-cutoff", "1"],
                                      _review_ready),
    "cache clear": Case(["cache", "clear", "--cache", "cache.sqlite", "--model", "model-a",
                         "--yes"], _cached, writes=(), points=2),
    "corpus collect": Case(["corpus", "collect", "bench", "--urls", "input/urls.txt",
                            "--allow-private", "--download-workers", "1"], _served,
                           pages=("Flood report for the north bank of the river.",
                                  "Shelter list for the storm season in the valley.")),
    "corpus extract": Case(["corpus", "extract", "bench", "--input", "input", "--workers",
                            "1"], _documents, points=2),
    "corpus dedup": Case(["corpus", "dedup", "bench", "--workers", "1"],
                         _corpus_after("extract"), points=2),
    "corpus chunk": Case(["corpus", "chunk", "bench", "--tokenizer", "words", "--workers",
                          "1"], _corpus_after("extract", "dedup"), points=2),
    "corpus dedup-passages": Case(["corpus", "dedup-passages", "bench", "--exact"],
                                  _corpus_after("extract", "dedup", "chunk"), points=2),
    "corpus write": Case(["corpus", "write", "bench"], _corpus_after("extract", "dedup", "chunk"),
                         points=3),
}


#: every verb that writes files (irforge/cli/app.py COMMANDS; the writers of irforge/cli/writers.py
#: and the helpers of irforge/core/generation.py, jsonl.py and bench.py they call) -> the
#: harness cases that kill it. A new writing verb fails
#: test_every_writing_verb_has_a_harness_case until it gets a case (or a reason below).
COVERED: dict[tuple[str | None, str], tuple[str, ...]] = {
    (None, "label"): ("label",),
    (None, "check"): ("check --judge-model",),  # plain check writes nothing
    (None, "run"): ("run",),
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
    ("annotate", "push"): ("annotate push",),
    ("annotate", "pull"): ("annotate pull",),
    ("audit", "agreement"): ("audit agreement",),
    ("audit", "duplicates"): ("audit duplicates",),
    ("audit", "overlap"): ("audit overlap",),
    (None, "view"): ("view",),
    (None, "demo"): ("demo",),
    ("audit", "rankings"): ("audit rankings --out",),
    ("recipe", "init"): ("recipe init --force",),
    ("build", "instructions-review"): ("build instructions-review",),
    ("cache", "clear"): ("cache clear",),
    ("corpus", "collect"): ("corpus collect",),
    ("corpus", "extract"): ("corpus extract",),
    ("corpus", "dedup"): ("corpus dedup",),
    ("corpus", "chunk"): ("corpus chunk",),
    ("corpus", "dedup-passages"): ("corpus dedup-passages",),
    ("corpus", "write"): ("corpus write",),
}
#: writing verbs without a case of their own, and why a reviewer accepts it: none now (push and
#: pull run against the module's Label Studio, the demo against the scripted server)
WITHOUT_CASE: dict[tuple[str | None, str], str] = {}
#: verbs that write no file
READ_ONLY = frozenset({(None, "version"), (None, "completion"),
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
    """``state`` without the counters of what one invocation did itself (:data:`ACTIVITY`;
    a stage of ``irforge run``'s report that an earlier run finished)."""
    if isinstance(state, bytes):
        return state.replace(RESUMED_STAGE, b"| done |")
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
        if path.name.endswith(SQLITE_SIDE_FILES):
            continue
        if path.suffix == ".sqlite":
            files[STAMP.sub("#", rel.as_posix())] = _rows(path)
            continue
        data = path.read_bytes()
        if path.suffix in (".md", ".html"):  # reports print durations ("index 0.10s")
            data = DURATION.sub(b"#s", data)
        key = STAMP.sub("#", rel.as_posix())
        files[key] = _stable(json.loads(data)) if path.suffix == ".json" else \
            STAMP.sub("#", data.decode("utf-8", "surrogateescape")).encode(
                "utf-8", "surrogateescape")
    return files


def _rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """A SQLite file's rows, table by table (opening it rolls back an unfinished transaction,
    as the next writer's open does)."""
    with closing(sqlite3.connect(path)) as db:
        tables = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {table: sorted(db.execute(f'SELECT * FROM "{table}"'), key=repr)
                for table in tables}


@contextmanager
def _page_server(texts: tuple[str, ...]) -> Iterator[list[str]]:
    """A PDF saying each of ``texts`` served on 127.0.0.1 (a free port); yields their URLs."""
    from reportlab.pdfgen import canvas

    bodies = {}
    for number, text in enumerate(texts):
        buffer = io.BytesIO()
        pdf = canvas.Canvas(buffer, invariant=1)
        pdf.drawString(72, 720, text)
        pdf.save()
        bodies[f"/page{number}.pdf"] = buffer.getvalue()

    class Pages(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            body = bodies.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/pdf")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield [f"http://127.0.0.1:{server.server_address[1]}{path}" for path in bodies]
    finally:
        server.shutdown()
        server.server_close()


def _env(kill: str = "") -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "IRFORGE_KILL_AT_WRITE": kill,
            "IRFORGE_API_KEY": ""}


@pytest.fixture(scope="module")
def verbs() -> Iterator[ForkedVerbs]:
    """One process that imported irforge and torch; each verb runs in a child it forks."""
    server = ForkedVerbs(_env())
    yield server
    server.close()


@pytest.fixture(scope="module")
def label_studio_env() -> Iterator[None]:
    """One Label Studio for the module's cases, named in the environment the verbs get."""
    with started_label_studio() as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv("LABEL_STUDIO_URL", server.url)
        patch.setenv("LABEL_STUDIO_API_KEY", server.token)
        yield


def _server_ids(state: Any) -> Any:
    """``state`` with the ids the server gave its projects left out (each run on a fresh copy
    of the previous state makes a project of its own)."""
    if isinstance(state, dict):
        return {key: "#" if key == "project_id" else _server_ids(item)
                for key, item in state.items()}
    if isinstance(state, list):
        return [_server_ids(item) for item in state]
    return state


def _runner(folder: Path, server: ScriptedServer | None, verbs: ForkedVerbs, kill: str = ""
            ) -> Callable[[list[str]], subprocess.CompletedProcess[str]]:
    env = {**_env(kill), **({"IRFORGE_API_BASE": server.url} if server is not None else {})}

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        extra = ["--api-base", server.url] if server is not None and "--model" in argv else []
        return verbs.run([*argv, *extra], folder, env)

    return run


def _recover(folder: Path, case: Case) -> None:
    for name in case.writes:
        if (folder / name).is_dir():
            rollback(folder / name)
    # a write outside a generation (one file, or irforge run's manifest between stages)
    # leaves its temporary file; the next write of the file sweeps it
    for parent in {path.parent for path in folder.rglob(".*.tmp")}:
        sweep_temporaries(parent)


def _differences(state: dict[str, Any], old: dict[str, Any], new: dict[str, Any],
                 progress: frozenset[str] = frozenset()) -> list[str]:
    """The files of ``state`` that are in neither the previous state nor the clean run's
    (but for the ``progress`` files a staged verb updates stage by stage)."""
    return sorted(key for key in set(state) | set(old) | set(new) if key not in progress
                  and state.get(key) != old.get(key) and state.get(key) != new.get(key))


def _kill_points(writes: int, every: bool, points: int = 1) -> list[int]:
    """Every write; or (the quick run) the middle one, or ``points`` of them spread evenly
    from the first write to the last."""
    if every:
        return list(range(1, writes + 1))
    if points <= 1 or writes == 1:
        return [writes // 2 + 1]
    count = min(points, writes)
    return sorted({1 + round(step * (writes - 1) / (count - 1)) for step in range(count)})


#: the exhaustive sweep (a subprocess per write of every verb) runs on request:
#: IRFORGE_CRASH_EVERY_WRITE=1 make test PYTEST_ARGS="tests/cli/test_crash_harness.py"
EVERY_WRITE = pytest.mark.skipif(not os.environ.get("IRFORGE_CRASH_EVERY_WRITE"),
                                 reason="the every-write sweep runs with "
                                        "IRFORGE_CRASH_EVERY_WRITE=1 (tens of minutes)")


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=[pytest.mark.slow,
                                                                      EVERY_WRITE])],
                         ids=["sampled", "every-write"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_kill_at_every_write_leaves_the_old_or_the_new_state(
        tmp_path: Path, name: str, every: bool, verbs: ForkedVerbs,
        request: pytest.FixtureRequest) -> None:
    case = CASES[name]
    if case.label_studio:
        request.getfixturevalue("label_studio_env")
    state_of = (lambda folder: _server_ids(_state(folder))) if case.remote else _state
    server = ScriptedServer(case.script) if case.script is not None else None
    with server if server is not None else nullcontext(), \
            _page_server(case.pages) if case.pages else nullcontext([]) as urls:
        before = tmp_path / "before"
        before.mkdir()
        if urls:
            (before / "input").mkdir()
            (before / "input" / "urls.txt").write_text("\n".join(urls) + "\n",
                                                       encoding="utf-8")
        case.setup(before, _runner(before, server, verbs))
        old = state_of(before)
        # every run works in one folder (paths a verb records are the same in each), a fresh
        # copy of the previous state
        work = tmp_path / "case"
        if server is not None:  # every later run finds its answers cached, as a re-run does
            _runner(_fresh(before, work), server, verbs)(case.verb)
            if case.cache:  # a verb that keeps its cache in its own folder (irforge run)
                shutil.copy2(work / case.cache, before / case.cache)
        remote_before = case.remote(before) if case.remote else None
        counted = _runner(_fresh(before, work), server, verbs, "count")(case.verb)
        assert counted.returncode in (0, 8), counted.stdout + counted.stderr
        remote_new = case.remote(work) if case.remote else None
        writes = int(counted.stderr.rsplit("irforge-write-points:", 1)[1].split()[0])
        new = state_of(work)
        assert new != old and writes >= 1
        points = _kill_points(writes, every, case.points)
        for kill_at in points:
            remote_killed = case.remote(before) if case.remote else None
            killed = _runner(_fresh(before, work), server, verbs, str(kill_at))(case.verb)
            assert killed.returncode == -9, (kill_at, killed.stdout + killed.stderr)
            _recover(work, case)
            state = state_of(work)
            mixed = _differences(state, old, new, STAGE_PROGRESS if case.stages else frozenset())
            # a one-generation verb leaves one whole set; a staged one (run) may leave each
            # stage old or new, which _differences already allows
            if not case.stages and not mixed and state not in (old, new):
                mixed = sorted(set(state) ^ set(new))
            assert not mixed if case.stages else state in (old, new), \
                f"{name}: kill at write {kill_at} of {writes} left a mix: {mixed}"
            if kill_at in points[-2:]:  # the re-run continues to the clean run's state
                rerun = _runner(work, server, verbs)(case.verb)
                assert rerun.returncode == counted.returncode, rerun.stdout + rerun.stderr
                assert _resumed(state_of(work)) == _resumed(new), \
                    f"{name}: the re-run after kill {kill_at} differs"
                if case.remote:  # the server holds one project of the clean run's tasks
                    remote = case.remote(work)
                    assert remote["tasks"] == remote_new["tasks"], \
                        f"{name}: the re-run after kill {kill_at} left tasks {remote['tasks']}"
                    assert remote["projects"] - remote_killed["projects"] == \
                        remote_new["projects"] - remote_before["projects"], \
                        f"{name}: the kill at {kill_at} and the re-run made a second project"


def _fresh(before: Path, work: Path) -> Path:
    """``work`` as a new copy of ``before``."""
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(before, work, symlinks=True)
    return work


def test_every_writing_verb_has_a_harness_case() -> None:
    verbs = {(group, name) for group, name, _ in COMMANDS}
    assert set(COVERED) | set(WITHOUT_CASE) | READ_ONLY == verbs, \
        "a verb is new: give it a harness case (COVERED) or say why it needs none"
    assert not set(COVERED) & set(WITHOUT_CASE) and not READ_ONLY & (set(COVERED) |
                                                                      set(WITHOUT_CASE))
    assert set(WRITERS) <= set(COVERED) | set(WITHOUT_CASE), "a locked verb writes"
    assert sorted(case for cases in COVERED.values() for case in cases) == sorted(CASES)
