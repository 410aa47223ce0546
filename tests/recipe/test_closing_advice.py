"""A failed ``irforge run`` says what to change: re-running unchanged replays the cache."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from irforge.recipe.cli import closing_advice
from irforge.steps.step import StepYield
from irforge.steps.yields import YieldTable


def test_advice_names_the_reasons_the_fix_and_the_stage_to_redo() -> None:
    table = YieldTable().extend([StepYield("multicon.query", 5, 0, Counter(
        {"llm invalid": 3, "rejected: gate copy": 2}))])
    lines = closing_advice("multicon", table, Path("bench/recipe.yaml"), Path("bench"))
    text = "\n".join(lines)
    assert "llm invalid (x3): the model does not follow the JSON schema" in text
    assert "rejected: gate copy (x2): generated queries fail the quality gates" in text
    assert "replays the cached model answers" in text
    assert "irforge run bench --recipe bench/recipe.yaml --from multicon" in text
    assert "run the same command again" not in text
