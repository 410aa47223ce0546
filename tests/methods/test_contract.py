"""The Method contract: every method exports a Config, its steps and a build; the recipe's
blocks are those Configs, and the verbs validate their flags with them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.errors import IrforgeError
from irforge.methods import MethodConfig, get_method, registry
from irforge.recipe.model import LabelSpec, MethodsSpec
from irforge.steps.method import validated


def test_every_method_exports_a_config_its_steps_and_a_build() -> None:
    methods = registry()
    assert list(methods) == ["intents", "logical", "multicon", "instructions", "relevance"]
    for name, method in methods.items():
        assert issubclass(method.config, MethodConfig) and method.steps and method.kept, name
        assert all(step.startswith(name) for step in method.steps), name
    with pytest.raises(IrforgeError, match="unknown method 'bogus'; known: intents"):
        get_method("bogus")


def test_the_recipe_blocks_are_the_methods_configs() -> None:
    for name in ("intents", "logical", "multicon", "instructions"):
        annotation = MethodsSpec.model_fields[name].annotation
        assert get_method(name).config in annotation.__args__, name
    assert LabelSpec is get_method("relevance").config


def test_a_bad_option_names_the_flag_and_the_rule() -> None:
    config = get_method("logical").config
    with pytest.raises(IrforgeError, match=r"--max-passages: Input should be less than or "
                                           r"equal to 3"):
        validated(config, max_passages=5)
    with pytest.raises(IrforgeError, match="--typo: Extra inputs are not permitted"):
        validated(config, typo=1)
    assert validated(config, per_type=4).per_type == 4


def test_the_verbs_refuse_what_the_recipe_refuses(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d", "title": "T", "text": "One sentence here."}\n')
    result = CliRunner().invoke(build_app(), ["build", "logical", str(tmp_path / "b"),
                                              "--corpus", str(corpus), "--max-passages", "5"])
    assert isinstance(result.exception, IrforgeError) and result.exception.exit_code == 2
    assert "--max-passages" in str(result.exception)
    result = CliRunner().invoke(build_app(), ["build", "multicon", str(tmp_path / "m"),
                                              "--corpus", str(corpus), "--n", "1"])
    assert isinstance(result.exception, IrforgeError) and result.exception.exit_code == 2
    assert "--n: Input should be greater than or equal to 2" in str(result.exception)


def test_run_ends_every_method_the_same_way_an_empty_result_before_an_untrusted_judge(
        tmp_path: Path) -> None:
    """``Method.run``: finish (a stop, then an empty result), then a failed judge (exit 8)."""
    from types import SimpleNamespace

    from irforge.core.errors import EmptyResultError, UntrustedLabels
    from irforge.steps.method import Built, Inputs, Method
    from irforge.steps.runner import BuildRunner

    judge = {"status": "untrusted", "lines": ["x.judge: accuracy 0.50 [0.2, 0.8]"]}
    engine = SimpleNamespace(stopped=None, notes=[], demo_grade=False)

    def method(kept: int) -> Method:
        return Method("toy", MethodConfig, ("toy.step",),
                      lambda runner, config, inputs: Built(kept, {}, judge, "toy qrels"),
                      "toy items")

    runner = BuildRunner.open(engine, tmp_path / "b", "toy")
    inputs = Inputs(corpus=tmp_path / "corpus.jsonl")
    with pytest.raises(EmptyResultError):
        method(0).run(runner, MethodConfig(), inputs)
    with pytest.raises(UntrustedLabels, match="toy judge failed its control items") as error:
        method(2).run(runner, MethodConfig(), inputs)
    assert error.value.exit_code == 8 and "accuracy 0.50" in str(error.value)
