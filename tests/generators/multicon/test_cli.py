"""Bad input to ``irforge build multicon`` stops before any LLM call, naming what to fix."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.errors import FormatError, IrforgeError
from irforge.generators.multicon.folder import read_given_conditions


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"_id": "a", "title": "", "text": "One. Two. Three."}) + "\n",
                    encoding="utf-8")
    return path


def _invoke(*args):
    return CliRunner().invoke(build_app(), ["build", "multicon", *map(str, args)])


def test_help_lists_the_options():
    result = _invoke("--help")
    assert result.exit_code == 0
    for option in ("--corpus", "--domain", "--n", "--pad-to", "--strategy", "--domains",
                   "--conditions", "--adaptive"):
        assert option in result.output


def test_unknown_domain_is_a_clear_error(tmp_path, corpus):
    result = _invoke(tmp_path / "bench", "--corpus", corpus, "--domain", "recipes")
    assert isinstance(result.exception, IrforgeError)
    assert "unknown domain 'recipes'" in str(result.exception)
    assert not (tmp_path / "bench").exists()


def test_bad_strategy_is_a_clear_error(tmp_path, corpus):
    result = _invoke(tmp_path / "bench", "--corpus", corpus, "--domain", "books",
                     "--strategy", "swap")
    assert isinstance(result.exception, IrforgeError)
    assert "unknown strategy 'swap'" in str(result.exception)


def test_bad_conditions_file_names_line_and_field(tmp_path, corpus):
    path = tmp_path / "given.jsonl"
    path.write_text('{"doc_id": "a", "conditions": ["One."]}\n{"doc_id": "b", "conditions": "x"}\n',
                    encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_given_conditions(path)
    assert info.value.problem.line == 2 and info.value.problem.field == "conditions"
    result = _invoke(tmp_path / "bench", "--corpus", corpus, "--domain", "books",
                     "--conditions", path)
    assert isinstance(result.exception, FormatError)


def test_without_a_domain_the_features_come_from_the_corpus_not_from_books(tmp_path):
    """No method silently assumes the papers' domains: the default domain is derived from
    the corpus's own terms, printed, and recorded before any LLM call (here: --dry-run-like
    failure on a dead endpoint still prints and records nothing made up)."""
    from irforge.core.records import Doc
    from irforge.generators.domain_profile import derive_domain

    docs = [Doc(f"b{i}", text) for i, text in enumerate([
        "Sourdough starter needs flour and water fed daily; the levain rises in warm rooms.",
        "Knead the dough until the gluten stretches thin; proof it in a banneton overnight.",
        "Bake the loaf in a preheated dutch oven; steam gives the crust its blistered shine.",
        "Rye flour ferments faster than wheat flour and makes a denser, sour crumb."])]
    domain = derive_domain(docs, seed=0)
    assert domain.name == "derived" and domain.features
    words = " ".join(domain.features)
    assert any(term in words for term in ("flour", "dough", "loaf", "starter", "wheat"))
    assert not any(term in words for term in ("novel", "author", "film", "patient"))
