"""kill -9 at every write of every writing verb: the folder holds the old files or the new ones.

Each case builds a folder in its previous state, runs the verb once cleanly (counting its
writes with ``IRFORGE_KILL_AT_WRITE=count`` and warming the LLM cache, so later runs send
nothing), then, for every write N, runs it on a fresh copy of the previous state with
``IRFORGE_KILL_AT_WRITE=N`` (SIGKILL just before the Nth rename, append or removal; an append
is cut in half first). After the recovery the next writer makes (``rollback``), the folder
must equal the previous state or the clean run's; then a re-run must reach the clean run's
state (checked after the last two kills). The quick run (CI runs it) kills each verb at its
middle write; the exhaustive run (``IRFORGE_CRASH_EVERY_WRITE=1``) at every write.
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

from irforge.core import beir
from irforge.core.generation import rollback
from irforge.core.records import Doc
from irforge.data.sample import write_seed_benchmark
from irforge.testing.scripted import Script, ScriptedServer
from tests.generators.intents.test_scenario import BREAD
from tests.generators.intents.test_scenario import _script as intents_script
from tests.generators.multicon.docs import NOVEL
from tests.generators.multicon.test_http import FERRY
from tests.generators.multicon.test_http import _script as multicon_script

ROOT = Path(__file__).resolve().parents[2]
# keys whose values change from run to run (clocks, durations): not part of the state
VOLATILE = ("created", "updated", "finished", "started", "seconds", "time", "date", "python",
            "elapsed", "duration", "took")
DURATION = re.compile(rb"\d+\.\d+ ?s\b")


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
}


def _stable(value: Any) -> Any:
    """``value`` without the keys that hold clocks or durations."""
    if isinstance(value, dict):
        return {key: _stable(item) for key, item in value.items()
                if not any(word in str(key).lower() for word in VOLATILE)}
    if isinstance(value, list):
        return [_stable(item) for item in value]
    return value


def _state(folder: Path) -> dict[str, Any]:
    """Every file a verb owns under ``folder`` (caches, locks and the input left out)."""
    files: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if not path.is_file() or ".irforge" in rel.parts or rel.name == "input.jsonl":
            continue
        data = path.read_bytes()
        if path.suffix in (".md", ".html"):  # reports print durations ("index 0.10s")
            data = DURATION.sub(b"#s", data)
        files[rel.as_posix()] = _stable(json.loads(data)) if path.suffix == ".json" else data
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
                assert _state(folder) == new, f"{name}: the re-run after kill {kill_at} differs"
            shutil.rmtree(folder)
