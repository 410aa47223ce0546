"""An API key never reaches the data, whatever the server echoes: through the real CLI, both
transports, a server that requires the key and repeats the Authorization header inside one
answer. That answer is rejected (not kept with ``***``), fresh and resumed runs agree, and no
file written (queries, corpus, judgments, failures, cache, manifest, parquet export) holds the
key, a 6-character one included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from irforge.core import beir
from irforge.core.records import Doc
from irforge.core.redact import redact
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer
from tests.generators.intents.test_scenario import BREAD
from tests.generators.intents.test_scenario import _script as bread_script

ROOT = Path(__file__).resolve().parents[2]
KEY = "k3y6ch"  # a 6-character key (shorter ones would blank ordinary words)
LEAKY = BREAD[4]  # the flour passage (a seed of this run): its answer repeats the key


def _script() -> Script:
    good = bread_script(good=True)
    _, _, text, question, need = LEAKY
    leak = Rule(f"{text}\n\nNeed: ", (Action.echo_in_answer(
        {"query": f"{question} (sent with {{authorization}})",
         "passage": f"{need.capitalize()}: see the notes."}),))
    return Script(default=good.default, rules=(leak, *good.rules), api_key=KEY)


def _irforge(*args: str, cwd: Path, url: str, transport: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": KEY,
           "IRFORGE_TRANSPORT": transport}
    env.pop("IRFORGE_API_KEY", None)
    llm = ["--model", "openai/scripted", "--api-base", url, "--cache",
           str(cwd / "bench" / "cache.sqlite")]
    return subprocess.run([sys.executable, "-m", "irforge", *args, *llm], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _files_holding(folder: Path, secret: str) -> list[Path]:
    return [path for path in folder.rglob("*")
            if path.is_file() and secret.encode() in path.read_bytes()]


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_an_echoed_key_is_rejected_and_never_stored(tmp_path: Path, transport: str) -> None:
    docs = [Doc(key, text, title) for key, title, text, _, _ in BREAD]
    docs.append(Doc("note", f"The shop's door code is {KEY} since spring; bakers start at "
                    "four and the first loaves leave the oven at six.", "Shop notes"))
    beir.write_corpus(tmp_path / "corpus.jsonl", docs)
    # term clusters: the shop note seeds a query of its own (the leaking answer's)
    build = ("build", "intents", "bench", "--corpus", "corpus.jsonl", "--intents", "QA",
             "--per-task", "1", "--taxonomy", "lexical")
    with ScriptedServer(_script()) as server:
        first = _irforge(*build, cwd=tmp_path, url=server.url, transport=transport)
        assert first.returncode == 0, first.stdout + first.stderr
        queries = (tmp_path / "bench" / "queries.jsonl").read_bytes()
        failures = list(beir.read_failures(tmp_path / "bench" / "failures.jsonl"))
        asked = server.count(LEAKY[2])
        again = _irforge(*build, cwd=tmp_path, url=server.url, transport=transport)
        assert again.returncode == 0, again.stdout + again.stderr
        assert server.count(LEAKY[2]) > asked, "the leaking answer was not cached"
        labeled = _irforge("label", "bench", "--strategies", "zero_shot", cwd=tmp_path,
                           url=server.url, transport=transport)
        assert labeled.returncode == 0, labeled.stdout + labeled.stderr
    exported = subprocess.run(
        [sys.executable, "-m", "irforge", "export", "bench", "--format", "hf", "--out", "hf"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": KEY})
    assert exported.returncode == 0, exported.stdout + exported.stderr
    assert list((tmp_path / "hf").rglob("*.parquet"))

    leaked = [f for f in failures if "rejected: the answer contains a credential" in f.reason]
    assert [f.item_id for f in leaked] and all(KEY not in (f.raw_output or "") for f in leaked)
    assert (tmp_path / "bench" / "queries.jsonl").read_bytes() == queries  # resumed == fresh
    assert b"sent with" not in queries, "the leaking item is rejected, not kept with ***"
    assert _files_holding(tmp_path / "bench", KEY) == []
    assert _files_holding(tmp_path / "hf", KEY) == []
    corpus = (tmp_path / "bench" / "corpus.jsonl").read_text(encoding="utf-8")
    assert "door code is ***" in corpus


def test_a_six_character_key_in_the_environment_is_blanked(monkeypatch) -> None:
    monkeypatch.setenv("SHOP_API_KEY", KEY)
    assert redact(f"failed with key {KEY} at the proxy") == "failed with key *** at the proxy"
