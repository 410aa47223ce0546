"""Same inputs and seed give byte-identical prompts, schemas and outputs in any process.

Each method is built twice through the real CLI, in separate processes with different
``PYTHONHASHSEED`` values, into folders with different names and with separate caches,
against a fresh scripted server each, which records every request; the second server answers
after a random delay per request, so the answers come back in another order. The requests
(messages and the rest of the body: schema, seed, token limit) and the written files must be
identical.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from irforge.core import beir
from irforge.core.records import Doc
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.generators.intents.test_scenario import BREAD
from tests.generators.intents.test_scenario import _script as intents_script
from tests.generators.logical.test_faults import FILMS
from tests.generators.logical.test_faults import SCRIPT as LOGICAL_SCRIPT
from tests.generators.multicon.docs import NOVEL
from tests.generators.multicon.test_http import FERRY
from tests.generators.multicon.test_http import _script as multicon_script

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {"intents-retried": 2}  # best-of-n (irforge.toml) where a case re-asks
OUTPUTS = ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "failures.jsonl",
           "judgments.jsonl", "multicon/task1.jsonl", "negation_labels.jsonl")


def _bread(path: Path) -> None:
    beir.write_corpus(path, [Doc(key, text, title) for key, title, text, _, _ in BREAD])


def _films(path: Path) -> None:
    beir.write_corpus(path, [FILMS, Doc("other", "Ada Kim directed two short films.",
                                        "Ada Kim")])


def _novel(path: Path) -> None:
    beir.write_corpus(path, [Doc("salt", NOVEL, "The Salt Orchard"),
                             Doc("ferry", FERRY, "The Quiet Ferry")])


def _intents_retried() -> Script:
    """The intents script with second samples in both chained steps: the first passage's
    first needs are too short (it reaches the query step after the others), the second
    passage's first query is the first passage's question."""
    base = intents_script(good=True)
    first, second = BREAD[0], BREAD[1]
    retried = [Rule(f"{first[2]}\nGive ", (Action.answer({"needs": ["flour"]}),
                                           Action.answer({"needs": [first[4]]}))),
               Rule(f"{second[2]}\n\nNeed: ", (Action.answer(
                   {"query": first[3], "passage": "Starters: see the baking notes."}),
                   Action.answer({"query": second[3], "passage":
                                  f"{second[4].capitalize()}: see the baking notes."})))]
    return replace(base, rules=(*retried, *base.rules))


# method -> (server script, corpus writer, the verbs to run on BENCH with CORPUS)
CASES: dict[str, tuple[Script, Callable[[Path], None], list[list[str]]]] = {
    "intents": (intents_script(good=True), _bread, [
        ["build", "intents", "BENCH", "--corpus", "CORPUS", "--intents", "QA",
         "--per-task", "2"],
        ["label", "BENCH", "--strategies", "zero_shot"]]),
    "intents-retried": (_intents_retried(), _bread, [
        ["build", "intents", "BENCH", "--corpus", "CORPUS", "--intents", "QA",
         "--per-task", "2"]]),
    "logical": (LOGICAL_SCRIPT, _films, [
        ["build", "logical", "BENCH", "--corpus", "CORPUS", "--types", "pin,2in",
         "--per-type", "2"]]),
    "multicon": (multicon_script(), _novel, [
        ["build", "multicon", "BENCH", "--corpus", "CORPUS", "--n", "3", "--domain", "books",
         "--pad-to", "80"]]),
}


def _requests(server: ScriptedServer, start: int) -> list[str]:
    """Every request since ``start``: its messages and body, in a stable order."""
    return sorted(json.dumps({"messages": entry.messages, "params": entry.params},
                             sort_keys=True) for entry in server.log[start:])


def _build(tmp_path: Path, method: str, name: str, hash_seed: str,
           server: ScriptedServer) -> tuple[list[str], dict[str, bytes]]:
    _, write_corpus, verbs = CASES[method]
    folder = tmp_path / name
    folder.mkdir()
    corpus = folder / "input.jsonl"
    write_corpus(corpus)
    if method in SAMPLES:
        (folder / "irforge.toml").write_text(f"[llm]\nsamples = {SAMPLES[method]}\n",
                                             encoding="utf-8")
    bench = folder / f"bench-{name}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": hash_seed}
    start = len(server.log)
    for verb in verbs:
        argv = [str(bench) if arg == "BENCH" else str(corpus) if arg == "CORPUS" else arg
                for arg in verb]
        done = subprocess.run([sys.executable, "-m", "irforge", *argv, "--model",
                               "openai/scripted", "--api-base", server.url, "--cache",
                               str(folder / "cache.sqlite")],
                              cwd=folder, env=env, capture_output=True, text=True, timeout=300)
        # 8: the scripted judge (3 for every pair) fails its controls; label writes
        # everything first, and this test compares what the two processes wrote
        assert done.returncode in (0, 3, 8), done.stdout + done.stderr
    files = {path: (bench / path).read_bytes() for path in OUTPUTS if (bench / path).is_file()}
    return _requests(server, start), files


@pytest.mark.parametrize("method", sorted(CASES))
def test_two_processes_with_other_hash_seeds_send_and_write_the_same(tmp_path: Path,
                                                                     method: str) -> None:
    with ScriptedServer(CASES[method][0]) as server:  # a fresh server: scripts keep state
        first_requests, first_files = _build(tmp_path, method, "one", "1", server)
    shuffled = replace(CASES[method][0], jitter=0.2, jitter_seed=7)  # answers in any order
    with ScriptedServer(shuffled) as server:
        second_requests, second_files = _build(tmp_path, method, "second-run", "4242", server)
    assert first_requests, "no request reached the server"
    assert len(first_requests) == len(second_requests)
    for first, second in zip(first_requests, second_requests, strict=True):
        assert first == second
    assert "queries.jsonl" in first_files
    assert sorted(first_files) == sorted(second_files)
    for path, content in first_files.items():
        assert content == second_files[path], f"{path} differs between the two runs"
