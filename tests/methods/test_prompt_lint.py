"""The prompt lint: every shipped template agrees with the code that reads its answers, and
each kind of disagreement (a worked example its own checks reject, an example missing keys
the schema requires, max_tokens below the words asked for, a label its input does not fit,
an unchecked claim about an input) is caught in a planted template, by the function and by
``irforge prompts lint DIR``."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.generators.intents.steps import GeneratedExample
from irforge.llm.degeneration import schema_token_limit
from irforge.methods.prompt_contracts import PromptContract, contract_for
from irforge.methods.prompt_lint import (
    ASSERTION,
    BOUNDS,
    BUDGET,
    EXAMPLE,
    LABEL,
    json_objects,
    lint_prompts,
    lint_template,
    query_form,
)
from irforge.prompts import get_template
from irforge.prompts.registry import TEMPLATES_DIR, load_template_file


def _plant(folder: Path, name: str, old: str, new: str) -> Path:
    """A copy of the shipped template ``name`` in ``folder`` with ``old`` replaced."""
    group, _, leaf = name.partition(".")
    source = (TEMPLATES_DIR / group / f"{leaf}.yaml").read_text(encoding="utf-8")
    assert old in source, f"{old!r} is not in {name}"
    path = folder / group / f"{leaf}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source.replace(old, new), encoding="utf-8")
    return path


def _checks(folder: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for finding in lint_prompts(folder, only_folder=True):
        out.setdefault(finding.check, []).append(finding.message)
    return out


def test_every_shipped_template_passes() -> None:
    findings = lint_prompts()
    assert findings == [], "\n".join(f.line() for f in findings)


def test_the_contracts_cover_the_generation_templates() -> None:
    for name in ("instructions.instruction", "instructions.reverse", "logical.query",
                 "instructions.rewrite_length", "instructions.rewrite_audience",
                 "instructions.rewrite_source", "intents.qa_query", "intents.fc_query",
                 "intents.qadoc_query", "intents.taxonomy"):
        assert contract_for(name) is not None, name


def test_a_worked_example_that_breaks_its_own_pattern_is_caught(tmp_path: Path) -> None:
    # the old shape: "{{ query }}?" gives "...website?? I only want..." for a question
    _plant(tmp_path, "instructions.instruction",
           '"{{ core }}{{ stop }} I only want', '"{{ query }}? I only want')
    messages = _checks(tmp_path)[EXAMPLE]
    assert any("website?? I only want" in m and "does not match the pattern" in m
               for m in messages)


def test_a_worked_example_without_its_instruction_sentence_is_caught(tmp_path: Path) -> None:
    # the instruction glued to the core query by a comma: no instruction sentence
    _plant(tmp_path, "instructions.instruction", '"{{ core }}{{ stop }} I only want',
           '"{{ core }}, I only want')
    messages = _checks(tmp_path)[EXAMPLE]
    assert any("exercises for weight loss, I only want" in m and "does not match the pattern"
               in m for m in messages)


def test_the_instructed_example_fits_a_core_query_of_several_sentences() -> None:
    from irforge.generators.instructions.steps.instruction import (
        InstructedQuery,
        _alternatives,
        _request_model,
    )
    from irforge.generators.instructions.text import content_words
    from irforge.methods.prompt_contracts import _condition

    template = get_template("instructions.instruction")
    shipped = contract_for("instructions.instruction")
    assert shipped is not None
    cores = [str(v["query"]) for v in shipped.variants({}) if "query" in v]
    assert any("$2.50" in c and "e.g." in c for c in cores)
    assert any("?" in c[:-1] for c in cores)
    assert lint_template(template, shipped) == []

    def one_sentence(inputs: dict) -> type:  # the pattern before: no '.?!' in the core
        chunk = r'[^"\\.?!\n]*'
        words = _alternatives(sorted(content_words(str(inputs["query"]))))
        condition = _alternatives(_condition(str(inputs["condition"])).terms)
        pattern = f"^{chunk}{words}{chunk}[.?!] {chunk}{condition}{chunk}[.?!]$"
        return _request_model(InstructedQuery, "instructed_query", pattern)

    old = PromptContract(model=one_sentence, validators=shipped.validators,
                         variants=shipped.variants)
    messages = [f.message for f in lint_template(template, old) if f.check == EXAMPLE]
    assert any("$2.50" in m and "does not match the pattern" in m for m in messages)


def test_an_example_missing_required_keys_is_caught(tmp_path: Path) -> None:
    _plant(tmp_path, "logical.query", '"projection": [], ', "")
    [message] = _checks(tmp_path)[EXAMPLE]
    assert "missing required key(s) ['projection']" in message


def test_an_example_the_validators_reject_is_caught(tmp_path: Path) -> None:
    # an answer that is not in its demonstration passage: the logical checks refuse it
    _plant(tmp_path, "logical.query", '"answer": "Quiet Harbor"', '"answer": "Blue Lagoon"')
    [message] = _checks(tmp_path)[EXAMPLE]
    assert "rejected by the step's validators" in message and "Blue Lagoon" in message


def test_a_taxonomy_example_naming_a_document_it_does_not_show_is_caught(
        tmp_path: Path) -> None:
    # the worked answer must name the worked example's own documents (intents.taxonomy)
    _plant(tmp_path, "intents.taxonomy", '"documents": ["g-11"]', '"documents": ["g-99"]')
    [message] = _checks(tmp_path)[EXAMPLE]
    assert "['g-99'] that are not in the list" in message


def test_an_example_that_is_not_json_is_caught(tmp_path: Path) -> None:
    _plant(tmp_path, "intents.qa_query", '"passage": "Library e-readers go out on three-week '
           'loans."}', '"passage": "Library e-readers go out on three-week loans.",}')
    assert any("not valid JSON" in m for m in _checks(tmp_path)[EXAMPLE])


def test_a_label_its_input_does_not_fit_is_caught(tmp_path: Path) -> None:
    _plant(tmp_path, "instructions.reverse", "Search query: {{ query }}",
           "Question: {{ query }}")
    [message] = _checks(tmp_path)[LABEL]
    assert "'Question: {{ query }}' may hold claim, keyword queries" in message


def test_an_unchecked_claim_about_an_input_is_caught(tmp_path: Path) -> None:
    _plant(tmp_path, "instructions.rewrite_source", "This text was found for the search",
           "This text answers the question")
    [message] = _checks(tmp_path)[ASSERTION]
    assert "This text answers the question" in message and "no code checked" in message


def test_max_tokens_below_the_words_asked_for_is_caught() -> None:
    # the limit the schema alone gave step 2 (334), against QA's longest length attributes
    template = get_template("intents.qa_query")
    shipped = contract_for("intents.qa_query")
    assert shipped is not None
    old_limit = schema_token_limit(GeneratedExample.model_json_schema())
    assert old_limit == 334
    planted = PromptContract(model=shipped.model, validators=shipped.validators,
                             token_limit=lambda inputs: old_limit, variants=shipped.variants,
                             asked_fields=shipped.asked_fields)
    messages = [f.message for f in lint_template(template, planted) if f.check == BUDGET]
    assert any("'at least 150 words'" in m and "'at least 200 words'" in m
               and "at 334 tokens" in m for m in messages)
    assert lint_template(template, shipped) == []  # the step's own limit covers them


def test_a_budget_from_any_ask_in_the_prompt(tmp_path: Path) -> None:
    class Answer(BaseModel):
        text: str

    path = tmp_path / "t.yaml"
    path.write_text('paper: p\ndescription: d\nvariables: []\nuser: "Rewrite it in about 120 '
                    'words as {\\"text\\": \\"...\\"}."\n', encoding="utf-8")
    template = load_template_file(path, "custom.t")
    short = PromptContract(model=lambda inputs: Answer, token_limit=lambda inputs: 168)
    [finding] = lint_template(template, short)  # the ~120-word rewrite cut off at 168
    assert finding.check == BUDGET and "'about 120 words'" in finding.message
    roomy = PromptContract(model=lambda inputs: Answer, token_limit=lambda inputs: 400)
    assert lint_template(template, roomy) == []


def test_json_objects_and_query_forms() -> None:
    text = 'Answer: {"query": "a {b}", "n": 1} then {"bad": } and {"ok": [1]}'
    spans = json_objects(text)
    assert [value for _, value in spans] == [{"query": "a {b}", "n": 1}, None, {"ok": [1]}]
    assert query_form("How long do herons live?") == "question"
    assert query_form("Herons live for about five years.") == "claim"
    assert query_form("heron lifespan") == "keyword"


def test_the_cli_lints_a_folder_and_exits_1_on_problems(tmp_path: Path) -> None:
    _plant(tmp_path, "instructions.reverse", "Search query: {{ query }}",
           "Question: {{ query }}")
    result = CliRunner().invoke(build_app(), ["prompts", "lint", str(tmp_path)])
    assert result.exit_code == 1
    assert "instructions.reverse: [label]" in result.output
    assert "prompt lint: 1 problem(s) in 1 of 1 template(s)" in result.output
    clean = CliRunner().invoke(build_app(), ["prompts", "lint"])
    assert clean.exit_code == 0, clean.output
    assert "no problem found" in clean.output


def test_the_cli_names_a_missing_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(build_app(), ["prompts", "lint", str(tmp_path / "nope")])
    assert result.exit_code != 0
    assert "does not exist" in str(result.exception or result.output)


def test_a_prompt_asking_for_more_words_than_its_check_accepts_is_caught(tmp_path: Path) -> None:
    # run 7: "three to eight words" asked; a user template asking for nine is held to the 8
    _plant(tmp_path, "multicon.condition_phrase", "{{ min_words }} to {{ max_words }} words",
           "three to nine words")
    [message] = _checks(tmp_path)[BOUNDS]
    assert "'three to nine words'" in message and "over 8 words" in message


def test_a_prompt_that_states_no_length_is_caught(tmp_path: Path) -> None:
    _plant(tmp_path, "multicon.condition_phrase", " of\n  {{ min_words }} to {{ max_words }} words",
           "")
    [message] = _checks(tmp_path)[BOUNDS]
    assert "does not say how many words" in message and "2 to 8" in message


def test_a_condition_example_over_the_cap_is_caught(tmp_path: Path) -> None:
    _plant(tmp_path, "multicon.condition_phrase",
           '{"phrase": "first published by Greyfell Press"}',
           '{"phrase": "first published in 2009 by Greyfell Press, 800 copies"}')
    messages = _checks(tmp_path)[EXAMPLE]
    assert messages and all("has 9 words, over 8" in m for m in messages)


def test_max_tokens_below_a_repeated_long_core_query_is_caught() -> None:
    # the instructed query repeats its core query whole: the schema's 168 tokens cut off a
    # ~190-word persona core (no "N words" ask in the prompt says so)
    from dataclasses import replace

    from irforge.generators.instructions.steps.instruction import InstructedQuery
    from irforge.llm.structured import output_schema

    for name in ("instructions.instruction", "instructions.reverse"):
        template, shipped = get_template(name), contract_for(name)
        assert shipped is not None and shipped.repeats == ("query",)
        old_limit = schema_token_limit(output_schema(InstructedQuery))
        assert old_limit == 168
        planted = replace(shipped, token_limit=lambda inputs, limit=old_limit: limit)
        messages = [f.message for f in lint_template(template, planted) if f.check == BUDGET]
        assert any("its query repeated whole" in m and "at 168 tokens" in m
                   for m in messages), messages
        assert lint_template(template, shipped) == []  # the step's own limit covers it


def test_the_instruction_steps_size_max_tokens_from_their_core_query() -> None:
    from irforge.generators.instructions.steps.instruction import request_tokens
    from irforge.prompts.forms import query_form
    from irforge.steps.word_budget import tokens_for_words

    budget = query_form("instructed").instruction_words or 0
    long_core = " ".join(["word"] * 190)
    assert request_tokens(long_core, "instructed") >= tokens_for_words([190 + budget])
    assert request_tokens("tomato light", "reversed") == 168  # the schema's floor


def _examples_of(name: str, key: str) -> list[str]:
    """The worked example of template ``name`` rendered for every shipped condition value."""
    from irforge.generators.instructions.dimensions import load_dimensions

    template = get_template(name)
    out = []
    for dimension in load_dimensions().values():
        for value in dimension.values.values():
            inputs = {**template.example, "dimension": dimension.name,
                      "condition": value.name.replace("_", " "), "phrase": value.said}
            text = "\n".join(m["content"] for m in template.render(**inputs))
            out += [v[key] for _, v in json_objects(text) if isinstance(v, dict) and key in v]
    return out


def test_the_instruction_examples_say_each_condition_as_a_person_would() -> None:
    reversals = _examples_of("instructions.reverse", "reversed_query")
    instructed = _examples_of("instructions.instruction", "instructed_query")
    assert "What is diabetes? I want documents other than those written in plain language." \
        in reversals
    assert any(text.endswith("I only want documents written for experts.")
               for text in instructed)
    for text in (*reversals, *instructed):  # never a bare value: "documents that are not layman"
        assert not any(f"are {bare}." in text or f"are not {bare}." in text
                       for bare in ("layman", "expert", "english", "article", "blog"))


def test_a_condition_phrase_its_checks_do_not_accept_is_caught(tmp_path: Path) -> None:
    # a phrase with none of the value's terms: the example no longer states the condition
    _plant(tmp_path, "instructions.reverse", "other than those {{ phrase }}",
           "other than those for everyone")
    messages = _checks(tmp_path)[EXAMPLE]
    assert any("other than those for everyone" in m and "does not match the pattern" in m
               for m in messages)


def test_the_answer_judge_example_must_fit_its_verdict_model(tmp_path: Path) -> None:
    # irforge check --judge-model reads "answers" as yes/no: a worked "maybe" is caught
    _plant(tmp_path, "check.answers", '"answers": "yes"}', '"answers": "maybe"}')
    [message] = _checks(tmp_path)[EXAMPLE]
    assert "'maybe' is not one of the allowed values" in message
