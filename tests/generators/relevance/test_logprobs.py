"""Labels from probabilities: the expected grade over the label tokens, the argmax beside it."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Query
from irforge.generators.intents import load_intents
from irforge.generators.relevance import LabelSettings, label_benchmark
from irforge.generators.relevance.probabilities import TOP_LOGPROBS, label_probabilities
from irforge.llm.cache import ResponseCache
from irforge.llm.completion import Completion, openai_logprobs, openai_params
from irforge.steps.runner import BuildRunner


def _entry(token: str, logprob: float, alternatives: dict[str, float]) -> dict:
    return {"token": token, "logprob": logprob,
            "top_logprobs": [{"token": t, "logprob": lp} for t, lp in alternatives.items()]}


# {"final_score": 2} as an OpenAI-compatible server returns it with top_logprobs
ANSWER = {"content": [
    _entry('{"', -0.01, {'{"': -0.01}),
    _entry("final", -0.02, {"final": -0.02}),
    _entry("_score", -0.01, {"_score": -0.01}),
    _entry('":', -0.01, {'":': -0.01}),
    _entry(" 2", math.log(0.5), {" 2": math.log(0.5), " 3": math.log(0.25),
                                 " 1": math.log(0.15), "{": math.log(0.05),
                                 " 7": math.log(0.05)}),
    _entry("}", -0.01, {"}": -0.01}),
]}


def test_expected_grade_is_read_where_the_score_starts_over_allowed_labels() -> None:
    tokens = openai_logprobs(ANSWER)
    probs = label_probabilities(tokens, "final_score", [0, 1, 2, 3])
    assert probs is not None
    assert probs.probs == pytest.approx({1: 0.15 / 0.9, 2: 0.5 / 0.9, 3: 0.25 / 0.9})
    assert probs.expected == pytest.approx((0.15 + 1.0 + 0.75) / 0.9)
    # after CoT phase one answered "Yes", only 2 and 3 are allowed
    bounded = label_probabilities(tokens, "final_score", [2, 3])
    assert bounded is not None and bounded.expected == pytest.approx(2 + 0.25 / 0.75)
    assert label_probabilities(tokens, "relevance_score", [0, 1, 2, 3]) is None
    assert label_probabilities(None, "final_score", [0, 1]) is None
    assert openai_params({"temperature": 0, "logprobs": 20}) == {
        "temperature": 0, "logprobs": True, "top_logprobs": 20}


def test_logprobs_survive_the_cache_and_old_caches_gain_the_column(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with sqlite3.connect(path) as conn:  # a cache written before log-probs were stored
        conn.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
                     "text TEXT NOT NULL, finish_reason TEXT, refusal TEXT, prompt_tokens "
                     "INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,"
                     " cost_usd REAL NOT NULL DEFAULT 0, prompt_id TEXT, step TEXT, created "
                     "REAL NOT NULL, hits INTEGER NOT NULL DEFAULT 0)")
        conn.execute("INSERT INTO responses (key, model, text, created) VALUES ('old', 'm', "
                     "'{}', 0)")
    cache = ResponseCache(path)
    tokens = openai_logprobs(ANSWER)
    cache.put("new", "m", Completion('{"final_score": 2}', "stop", logprobs=tokens))
    assert cache.get("old") == Completion("{}", None)
    assert cache.get("new").logprobs == tokens
    assert cache.get_many(["new"])["new"].logprobs == tokens
    cache.close()


@pytest.mark.slow
def test_embedded_model_labels_with_the_expected_grade(tmp_path: Path) -> None:
    from irforge.llm import Engine

    bench = Benchmark(tmp_path / "bench")
    bench.write_corpus([Doc("d1", "Bakers feed a sourdough starter twice a day.")])
    bench.write_queries([Query("q1", "How often is a sourdough starter fed?", {"intent": "QA"})])
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("q1\td1\n", encoding="utf-8")
    settings = LabelSettings(strategies=("zero_shot",))
    with Engine(None, cache_path=tmp_path / "cache.sqlite", max_tokens=20, progress=False,
                logprobs=TOP_LOGPROBS) as engine:
        report = label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [pairs],
                                 load_intents(), settings)
    assert report.counts["qrels"] == 1
    [judgment] = list(bench.judgments())
    meta = judgment.metadata
    assert meta["label_from"] == "logprobs"
    probs = {int(k): v for k, v in meta["phases"]["label_probs"].items()}
    assert set(probs) <= {0, 1, 2, 3} and sum(probs.values()) == pytest.approx(1.0, abs=1e-4)
    assert judgment.label == pytest.approx(sum(k * v for k, v in probs.items()), abs=1e-4)
    assert meta["argmax_label"] == meta["phases"]["final_score"] == max(probs, key=probs.get)
    assert 0 <= judgment.label <= 3


def test_superscript_and_other_unicode_digits_among_the_alternatives_are_skipped() -> None:
    """The embedded model offered "²" as an alternative label token: isdigit() is true for it,
    int() is not (the demo's labeling crashed on it)."""
    tokens = [('{"final_score": ', -0.01, []), ("2", math.log(0.6),
                                                [("²", math.log(0.3)), ("3", math.log(0.1))])]
    probs = label_probabilities(tokens, "final_score", [0, 1, 2, 3])
    assert probs is not None and probs.probs == pytest.approx({2: 0.6 / 0.7, 3: 0.1 / 0.7})
