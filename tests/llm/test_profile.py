"""Model profiles: small for the embedded model and small local GGUFs, capable for API and
server models; the recipe or irforge.toml overrides it; a bad name is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.core.errors import IrforgeError
from irforge.llm.profile import CAPABLE, SMALL, derived_profile, is_capable, model_profile
from irforge.llm.settings import ModelSpec, resolve_model


def test_profiles_derived_from_the_model(tmp_path: Path) -> None:
    embedded = ModelSpec("embedded:smollm2.gguf", "llama", tmp_path / "x.gguf", demo_grade=True)
    assert derived_profile(embedded) == SMALL
    tiny = tmp_path / "tiny.gguf"
    tiny.write_bytes(b"GGUF" + bytes(64))
    assert derived_profile(resolve_model(f"gguf:{tiny}", config={})) == SMALL
    assert derived_profile(resolve_model("openai/gpt-4o-mini", config={})) == CAPABLE
    served = resolve_model("openai/qwen", api_base="http://127.0.0.1:9/v1", config={})
    assert derived_profile(served) == CAPABLE


def test_an_override_wins_and_a_bad_name_is_explained() -> None:
    api = resolve_model("openai/gpt-4o-mini", config={})
    assert model_profile(api, "small") == SMALL
    assert model_profile(api, None) == CAPABLE
    with pytest.raises(IrforgeError, match="unknown model profile 'huge'; choose small or "
                                           "capable"):
        model_profile(api, "huge")


def test_engine_reads_the_profile_from_irforge_toml_and_its_argument() -> None:
    from irforge.llm import Engine

    with Engine("openai/x", config={"profile": "small"}, use_cache=False) as engine:
        assert engine.profile == SMALL and not is_capable(engine)
        assert engine.manifest_entry()["profile"] == SMALL
    with Engine("openai/x", config={}, use_cache=False, profile="capable") as engine:
        assert is_capable(engine)
    assert not is_capable(object())  # fakes without a profile keep the constraints


def test_the_recipe_takes_a_profile(tmp_path: Path) -> None:
    from irforge.recipe.model import Recipe

    recipe = Recipe.model_validate({"corpus": {"input": str(tmp_path)}, "profile": "capable"})
    assert recipe.profile_for(None) == CAPABLE
    with pytest.raises(ValueError, match="profile"):
        Recipe.model_validate({"corpus": {"input": str(tmp_path)}, "profile": "huge"})
