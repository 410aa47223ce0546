"""The relevance-target depth: a recipe (or build verb) may relax k, never switch the filter
off; the k used is printed and recorded in the manifest, and each kept query's metadata holds
the rank its positive reached."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError, IrforgeError
from irforge.core.records import Doc
from irforge.methods import Inputs, get_method
from irforge.recipe.model import load_recipe
from irforge.steps.runner import BuildRunner, target_line
from tests.check.test_generation import DOCS, GOOD
from tests.generators.fake_engine import FakeEngine

# five short passages that say "wet roads" and "tyre pressure" more often than b1 does, so
# BM25 ranks b1 sixth for its query: outside the default top 3 of 9 passages (too short to
# be generation sources themselves: only the four real-length passages seed queries)
WET = [Doc(f"w{number}", text, "Wet roads") for number, text in enumerate([
    "On wet roads, lower tyre pressure: wet roads need lower pressure in every tyre.",
    "Riders on wet roads should lower tyre pressure; lower pressure grips wet roads better.",
    "How much lower? On wet roads tyre pressure should be lower by a few psi.",
    "Wet roads and tyre pressure: lower pressure, wider tyres, slower corners on wet roads.",
    "Tyre pressure on wet roads is lower than on dry roads for most riders.",
])]
CORPUS = [*DOCS, *WET]
RECIPE = """corpus: {{input: docs}}
methods:
  intents: {{intents: [QA], per_task: 9, needs: 1, taxonomy: tax.yaml{extra}}}
"""


def _engine() -> FakeEngine:
    """b1's seed gets its good question; every other seed a one-word answer (gated out)."""
    def query(item: Any) -> dict[str, str]:
        is_b1 = DOCS[0].text[:40] in item["passage"]
        return {"query": GOOD["b1"] if is_b1 else "Tyres.", "passage": "unused"}

    def needs(item: Any) -> dict[str, list[str]]:
        return {"needs": [" ".join(item["passage"].split()[:6]).lower()]}

    return FakeEngine({"intents.qa_needs": needs, "intents.qa_query": query})


def _build(root: Path, extra: str = "") -> Benchmark:
    """The recipe's intents block through ``Method.run`` (what ``irforge run`` calls)."""
    root.mkdir(parents=True)
    beir.write_corpus(root / "corpus.jsonl", CORPUS)
    (root / "tax.yaml").write_text("categories:\n  - {name: Bikes, keywords: [tyres, chain, "
                                   "brakes, sealant, tyre, roads]}\n", encoding="utf-8")
    (root / "recipe.yaml").write_text(RECIPE.format(extra=extra), encoding="utf-8")
    config = load_recipe(root / "recipe.yaml").methods.intents
    runner = BuildRunner.open(_engine(), root / "bench", "intents")
    get_method("intents").run(runner, config, Inputs(root / "corpus.jsonl"))
    return runner.bench


def test_a_recipe_with_a_larger_k_keeps_what_the_default_rejects_and_records_k(tmp_path):
    with pytest.raises(EmptyResultError):
        _build(tmp_path / "default")
    rejected = Benchmark(tmp_path / "default" / "bench").failures()
    # b1 may seed several of the 9 queries (the selector keeps only real-length passages)
    b1s = {f.reason for f in rejected if f.metadata.get("source_doc") == "b1"}
    assert len(b1s) == 1, b1s
    [b1] = b1s
    # b1's good question fails only the target validator, with its rank
    assert b1.count("validator ") == 1 and "validator target: target not retrievable" in b1
    assert "best rank 6 (needs top 3 of 9 passages" in b1

    bench = _build(tmp_path / "relaxed", ", target_k: 6")
    kept = list(bench.queries())
    assert [q.text for q in kept] == [GOOD["b1"]]
    target = kept[0].metadata["target"]
    assert (target["rank"], target["ranks"], target["k"]) == (6, {"bm25": 6}, 6)
    assert target["retrievable"] and target["positives"] == ["b1"]
    recorded = bench.manifest()["steps"]["intents"]["details"]["validation"]["target"]
    assert recorded == {"k": 6, "k_given": 6, "corpus_size": 9, "retrievers": ["bm25"]}
    assert "top 6 of 9 passages (bm25; k given" in target_line({"target": recorded})


def test_k_can_relax_the_filter_but_never_switch_it_off(tmp_path):
    (tmp_path / "recipe.yaml").write_text(RECIPE.format(extra=", target_k: 0"),
                                          encoding="utf-8")
    with pytest.raises(IrforgeError, match=r"methods\.intents\.target_k"):
        load_recipe(tmp_path / "recipe.yaml")
    for verb in ("intents", "logical", "multicon", "instructions"):
        result = CliRunner().invoke(build_app(), ["build", verb, str(tmp_path / verb),
                                                  "--corpus", str(tmp_path / "c.jsonl"),
                                                  "--target-k", "0"])
        assert isinstance(result.exception, IrforgeError), (verb, result.output)
        assert result.exception.exit_code == 2
        # the option layer refuses it before any work, naming the flag (cli/validate.py)
        assert "--target-k 0: must be at least 1" in str(result.exception), verb
    # a k past the corpus size is allowed, and the console line says what it leaves
    whole = target_line({"target": {"k": 20, "k_given": 20, "corpus_size": 9,
                                    "retrievers": ["bm25"]}})
    assert "covers the whole corpus" in whole and "no retriever scores" in whole
