"""A key given twice in a user's YAML is an error naming both lines, never the last value."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from irforge.core.errors import FormatError
from irforge.core.yamlfile import load_yaml
from irforge.recipe.model import load_recipe


def test_a_duplicated_key_names_both_lines() -> None:
    with pytest.raises(yaml.YAMLError, match=r"the key 'model' is given twice \(lines 1 and 3\)"):
        load_yaml("model: a\nseed: 1\nmodel: b\n")
    assert load_yaml("a: {x: 1}\nb: {x: 2}\n") == {"a": {"x": 1}, "b": {"x": 2}}
    with pytest.raises(yaml.YAMLError):
        load_yaml("!!python/object/apply:os.system ['true']")  # still a safe loader


def test_a_recipe_with_a_duplicated_key_is_refused(tmp_path: Path) -> None:
    """Issue 37: the second ``budget_usd`` silently won."""
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("budget_usd: 1\ncorpus:\n  input: docs\nbudget_usd: 100\n",
                      encoding="utf-8")
    with pytest.raises(FormatError, match=r"recipe.yaml:4: not valid YAML: the key 'budget_usd' "
                                          r"is given twice \(lines 1 and 4\)"):
        load_recipe(recipe)
