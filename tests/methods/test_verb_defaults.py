"""Each build verb's defaults are its method's Config defaults (the recipe block's): one source,
so ``irforge build multicon`` and a recipe's ``methods.multicon`` build the same thing."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest

from irforge.generators.instructions.cli import build_command as instructions_verb
from irforge.generators.intents.cli import build_intents_command
from irforge.generators.logical.cli import build_logical_command
from irforge.generators.multicon.cli import build_command as multicon_verb
from irforge.generators.relevance.cli import label_command
from irforge.methods import get_method
from irforge.steps.method import flag_defaults

# method -> (its verb, flag parameter -> Config field where the names differ,
#            Config fields with no flag of their own and why)
VERBS: dict[str, tuple[Callable[..., None], dict[str, str], set[str]]] = {
    "intents": (build_intents_command, {}, set()),
    "logical": (build_logical_command, {}, set()),
    "multicon": (multicon_verb, {}, set()),
    # the verb reads --pairs or --corpus instead of another method's folder
    "instructions": (instructions_verb, {}, {"from_"}),
    "relevance": (label_command, {"binarize": "binarization", "positives": "include_positives"},
                  set()),
}
SHARED = {"model", "api_base"}  # the LLM options every verb has (default: the engine's)


def _flag_defaults(verb: Callable[..., None]) -> dict[str, object]:
    return {name: parameter.default for name, parameter in
            inspect.signature(verb).parameters.items()
            if parameter.default is not inspect.Parameter.empty}


@pytest.mark.parametrize("method", list(VERBS))
def test_every_config_field_is_a_flag_with_the_configs_default(method: str) -> None:
    verb, renamed, without_flag = VERBS[method]
    config = get_method(method).config
    expected = vars(flag_defaults(config))
    flags = {renamed.get(name, name): value for name, value in _flag_defaults(verb).items()}
    missing = set(config.model_fields) - set(flags) - without_flag
    assert not missing, f"{method}: Config fields without a flag: {missing}"
    differ = {name: (flags[name], expected[name]) for name in config.model_fields
              if name in flags and name not in SHARED and flags[name] != expected[name]}
    assert not differ, f"{method}: flag default != Config default: {differ}"


def test_the_defaults_issue_23_found_apart_now_agree() -> None:
    """``build multicon --n`` was 10 against the recipe's 3; the verbs read the Config now."""
    defaults = _flag_defaults(multicon_verb)
    assert (defaults["n"], defaults["limit"]) == (3, 3)
    assert _flag_defaults(build_logical_command)["types"] == "1p,2i,2in"
    assert _flag_defaults(build_intents_command)["intents"] == "QA,FC"
    assert _flag_defaults(label_command)["strategies"] == "zero_shot"
    assert _flag_defaults(instructions_verb)["dimension"] == "audience"


def test_the_help_shows_the_configs_defaults() -> None:
    from typer.testing import CliRunner

    from irforge.cli.app import build_app

    result = CliRunner().invoke(build_app(), ["build", "multicon", "--help"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0
    line = next(row for row in result.output.splitlines() if "--n " in row)
    assert "[default: 3]" in line, line


def test_recipe_init_shows_the_configs_defaults_and_the_target_depth() -> None:
    """``irforge recipe init`` writes default.yaml: each method block's values are the
    Config's defaults, and every query method names ``target_k``."""
    import yaml

    from irforge.recipe.model import DEFAULT_RECIPE

    blocks = yaml.safe_load(DEFAULT_RECIPE.read_text(encoding="utf-8"))["methods"]
    for method, block in blocks.items():
        config = get_method(method).config
        assert "target_k" in block, method
        fields = {(field.alias or name): name for name, field in config.model_fields.items()}
        for key, value in block.items():
            default = config.model_fields[fields[key]].get_default(call_default_factory=True)
            assert value == default, (method, key, value, default)
