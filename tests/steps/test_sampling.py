"""Best-of-n in the step runner, and the engine's sample and token-limit options."""

from __future__ import annotations

from pydantic import BaseModel

from irforge.llm.degeneration import MIN_TOKEN_LIMIT, TOKENS_PER_STRING, schema_token_limit
from irforge.llm.sampling import SAMPLE_TEMPERATURE, default_samples, sample_params
from irforge.steps import Step, run_step
from irforge.steps.choices import choice_model
from tests.generators.fake_engine import FakeEngine


class Keywords(BaseModel):
    summary: str = ""
    keywords: list[str]


def _step(max_tokens: int | None = None) -> Step:
    def no_stopwords(item, value):
        return [f"{k!r} is a stop-word" for k in value.keywords if k == "the"]

    return Step(name="t.kw", template="demo.keywords", output_model=Keywords,
                variables=lambda item: {"title": item, "text": item}, item_id=lambda item: item,
                validators=(no_stopwords,), accept=lambda item, value: value.keywords,
                max_tokens=max_tokens)


def test_a_failing_item_is_sampled_again_until_it_passes():
    engine = FakeEngine({"demo.keywords": lambda item: {
        "keywords": ["the"] if engine.sample < 2 or item["title"] == "never" else ["flood"]}})
    engine.samples = 3
    outcome = run_step(engine, _step(), ["a", "never"])
    assert outcome.accepted == {"a": ["flood"]}
    # sample 0 for both, then only the open items: 1 and 2 for both (both still failing at 1)
    assert engine.samples_asked == [0, 1, 2]
    assert outcome.yield_.samples == 6 and outcome.yield_.attempted == 2
    [failure] = outcome.failures
    assert failure.item_id == "never" and failure.metadata["samples"] == 3
    assert failure.metadata["earlier_reasons"] == ["rejected: 'the' is a stop-word"] * 2
    assert outcome.judgments[0].metadata["sample"] == 2


def test_one_sample_by_default_and_no_resampling_of_passing_items():
    engine = FakeEngine({"demo.keywords": lambda item: {"keywords": ["river"]}})
    outcome = run_step(engine, _step(), ["a", "b"])
    assert engine.samples_asked == [0] and outcome.yield_.samples == 2
    assert run_step(engine, _step(), ["c"], samples=4).accepted == {"c": ["river"]}
    assert engine.samples_asked == [0, 0]


def test_engine_errors_and_budget_skips_are_not_resampled():
    class Failing(FakeEngine):
        def run(self, items, template_name, output_model, step=None, *, sample=0,
                max_tokens=None):
            from irforge.llm import LLMResult

            self.samples_asked.append(sample)
            return [LLMResult("skipped", error="budget") for _ in items]

    engine = Failing({})
    outcome = run_step(engine, _step(), ["a"], samples=3)
    assert engine.samples_asked == [0]
    assert outcome.failures[0].reason.startswith("llm skipped")


def test_later_samples_use_a_higher_temperature_another_seed_and_a_step_token_limit():
    base = {"temperature": 0.0, "max_tokens": 1024, "seed": 7}
    assert sample_params(base, 0, None) == base
    again = sample_params(base, 2, 300)
    assert again == {"temperature": SAMPLE_TEMPERATURE, "max_tokens": 300, "seed": 9}
    # a step limit never raises the user's own limit
    assert sample_params(base, 0, 5000)["max_tokens"] == 1024
    assert default_samples("llama") == 3 and default_samples("litellm") == 1


def test_token_limits_are_sized_to_the_schema():
    ids = schema_token_limit(choice_model(20, 3).model_json_schema())
    free = schema_token_limit(Keywords.model_json_schema())
    assert MIN_TOKEN_LIMIT <= ids < 100  # three enum ids need few tokens
    assert free >= TOKENS_PER_STRING * 8  # open lists of strings get room for eight
