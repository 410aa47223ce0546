"""The README walkthrough on a corpus far from the papers' domains (bread baking), through the
real CLI and HTTP against the scripted server: no --taxonomy, so the (capable) model names the
categories over a sample of the corpus.

Good answers are accepted and labeled; answers that copy the seed passage (title + first
sentence, the reported failure) or repeat one another are rejected: the build exits 3 naming the
reasons, and every rejected item is in failures.jsonl.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from irforge.check.folder import check_benchmark
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.records import Doc
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

ROOT = Path(__file__).resolve().parents[3]

# (id, title, text, a question in the baker's own words, the need it serves)
BREAD = [
    ("starter", "Keeping a sourdough starter",
     "A sourdough starter is a culture of wild yeast and bacteria in flour and water. Bakers "
     "feed it twice a day with equal weights of flour and water.",
     "How often should a sourdough starter be fed?", "how often a starter is fed"),
    ("kneading", "Kneading and gluten",
     "Kneading develops gluten, the elastic network that traps gas. The windowpane test "
     "checks it: stretched dough should let light through without tearing. "
     "Ten minutes of kneading by hand is usually enough.",
     "How can I tell that bread dough has enough gluten?", "testing gluten after kneading"),
    ("proofing", "Proofing the dough",
     "Proofing is the final rise of shaped dough. A floured fingertip pressed into ready "
     "dough leaves a dent that springs back slowly. Dough that collapses has "
     "proofed too long.",
     "What does a slowly returning dent mean for shaped dough?", "when proofing dough is done"),
    ("oven", "Oven temperature and steam",
     "Crusty loaves bake at 230 to 250 degrees Celsius. Steam in the first fifteen minutes "
     "keeps the crust soft so the loaf can expand. "
     "A tray of hot water on the lowest shelf gives enough steam.",
     "Why do bakers add steam when a loaf goes in?", "why steam helps a loaf expand"),
    ("flour", "Choosing flour",
     "Bread flour contains 12 to 14 percent protein, more than cake flour. Rye flour holds "
     "water well and gives dense, moist loaves. "
     "Whole wheat flour keeps the bran and needs more water.",
     "Which flour makes the densest moist loaves?", "which flour gives moist loaves"),
    ("storage", "Storing bread",
     "Bread goes stale because starch recrystallises. Staling is fastest at refrigerator "
     "temperatures, so bread kept in the fridge hardens sooner. "
     "A cloth bag at room temperature keeps a loaf for two days.",
     "Should bread be stored in the refrigerator?", "where bread stays fresh longest"),
]


# the model's categories for the bread corpus (taxonomy: derived, a capable model): the two
# groups the term clusters find ("dough & enough", "flour & water"), named as a baker would
BREAD_CATEGORIES = [
    ("Dough, baking and keeping bread",
     "Kneading, proofing and baking a loaf, and keeping it fresh afterwards.",
     ["dough", "kneading", "oven", "stale"], ["kneading", "oven", "proofing", "storage"]),
    ("Flour and starters", "Choosing flour and keeping a sourdough starter alive.",
     ["flour", "starter", "rye"], ["flour", "starter"]),
]


def taxonomy_answer(suffix: str = "") -> dict:
    """The model's answer to the taxonomy request, the corpus's ids ending in ``suffix``."""
    return {"categories": [
        {"name": name, "description": description, "keywords": keywords,
         "documents": [f"{key}{suffix}" for key in keys]}
        for name, description, keywords, keys in BREAD_CATEGORIES]}


def taxonomy_rules() -> list[Rule]:
    """The taxonomy request answered for the corpus as a JSONL file (ids: the keys) and as
    ``.txt`` files a recipe reads (ids: ``starter.txt_0``...)."""
    key, title = BREAD[0][:2]
    return [Rule(f"[{key}{suffix}] {title}:", (Action.answer(taxonomy_answer(suffix)),))
            for suffix in ("", ".txt_0")]


def _corpus(path: Path) -> None:
    beir.write_corpus(path, [Doc(key, text, title) for key, title, text, _, _ in BREAD])


def _script(good: bool) -> Script:
    """The taxonomy, then per passage: its needs, then its example (good: own words; bad:
    title + first sentence)."""
    rules = taxonomy_rules()
    for _, title, text, question, need in BREAD:
        rules.append(Rule(f"{text}\nGive ", (Action.answer({"needs": [need]}),)))
        copied = f"{title} {text.split('. ')[0]}."
        answer = ({"query": question, "passage": f"{need.capitalize()}: see the baking notes."}
                  if good else {"query": copied, "passage": "A passage about bread."})
        rules.append(Rule(f"{text}\n\nNeed: ", (Action.answer(answer),)))
    # the judge: relevant for a query's own passages (its seed and the one it wrote), not for
    # other passages (the judge controls' negatives include same-topic near-misses)
    # (the seed passage is shown under its title, the written one has none)
    for _, title, text, question, need in BREAD:
        for passage in (f"Title: {title}\nPassage: {text}",
                        f"Passage: {need.capitalize()}: see the baking notes."):
            rules.append(Rule(f"Query: {question}\n{passage}",
                              (Action.answer({"final_score": 3}),)))
    rules.append(Rule('Answer as {"final_score"', (Action.answer({"final_score": 0}),)))
    return Script(default=Action.answer({}), rules=tuple(rules))


def _irforge(*args: str, cwd: Path, url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    common = ["--model", "openai/scripted", "--api-base", url, "--cache",
              str(cwd / "cache.sqlite")]
    return subprocess.run([sys.executable, "-m", "irforge", *args, *common], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_good_answers_build_label_and_check(tmp_path: Path) -> None:
    _corpus(tmp_path / "corpus.jsonl")
    with ScriptedServer(_script(good=True)) as server:
        built = _irforge("build", "intents", "bench", "--corpus", "corpus.jsonl",
                         "--intents", "QA", "--per-task", "1", cwd=tmp_path, url=server.url)
        assert built.returncode == 0, built.stderr
        labeled = _irforge("label", "bench", "--strategies", "zero_shot", cwd=tmp_path,
                           url=server.url)
        assert labeled.returncode == 0, labeled.stderr
    assert "derived from the corpus by the model" in built.stdout
    assert "intents.query" in built.stdout
    bench = Benchmark(tmp_path / "bench")
    step = bench.manifest()["steps"]["intents"]
    categories = step["details"]["taxonomy"]["categories"]
    assert step["details"]["taxonomy"]["derivation"] == "model"
    assert [c["name"] for c in categories] == [row[0] for row in BREAD_CATEGORIES]
    assert all(category["passages"] >= 1 for category in categories)
    queries = [q for q in bench.queries() if q.metadata.get("generated_by") == "intents"]
    assert len(queries) == 2 and len({q.text for q in queries}) == 2
    assert {q.text for q in queries} <= {row[3] for row in BREAD}
    [query_yield] = [row for row in step["yield"] if row["step"] == "intents.query"]
    assert {k: v for k, v in query_yield.items() if k != "samples"} == {
        "step": "intents.query", "attempted": 2, "accepted": 2, "rejected": {}}
    assert query_yield["samples"] >= 1  # best-of-n draws recorded in the manifest
    assert "relevance.zero_shot" in labeled.stdout
    assert bench.qrels_dict() == {q.query_id: {q.metadata["positive_doc_id"]: 3}
                                  for q in queries}
    assert check_benchmark(bench.root).ok


def test_copied_and_identical_queries_exit_3_with_reasons(tmp_path: Path) -> None:
    _corpus(tmp_path / "corpus.jsonl")
    with ScriptedServer(_script(good=False)) as server:
        built = _irforge("build", "intents", "bench", "--corpus", "corpus.jsonl",
                         "--intents", "QA", "--per-task", "2", cwd=tmp_path, url=server.url)
    assert built.returncode == 3, built.stdout + built.stderr
    message = " ".join(built.stderr.split())
    assert "0 intent queries accepted" in message and "the query copies" in message
    bench = Benchmark(tmp_path / "bench")
    failures = [f for f in bench.failures() if f.step == "intents.query"]
    assert len(failures) == 4 and all("copies the seed passage" in f.reason for f in failures)
    assert all(json.loads(f.raw_output)["query"] for f in failures)
    # a build that keeps nothing writes no queries file over a fresh folder (core/generation.py)
    assert not bench.queries_path.exists() or not [
        q for q in bench.queries() if q.metadata.get("generated_by") == "intents"]
    yields = bench.manifest()["steps"]["intents"]["yield"]
    assert {row["step"]: row["accepted"] for row in yields}["intents.query"] == 0
