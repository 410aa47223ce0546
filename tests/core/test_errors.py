from __future__ import annotations

from pathlib import Path

import pytest

from irforge.core.errors import FormatError, MissingExtraError, Problem, require


def test_missing_optional_dependency_names_the_extra() -> None:
    with pytest.raises(ImportError, match=r"pip install 'irforge\[eval\]'") as info:
        require("irforge_no_such_module", "eval")
    assert isinstance(info.value, MissingExtraError)


def test_present_module_is_returned() -> None:
    assert require("json", "core").dumps([1]) == "[1]"


def test_problem_text_says_where_what_and_how_to_fix() -> None:
    problem = Problem(Path("bench/corpus.jsonl"), "missing", line=7, field="_id",
                      hint="add an id")
    assert str(problem) == "bench/corpus.jsonl:7: field '_id': missing (fix: add an id)"
    assert FormatError(problem).problem is problem
