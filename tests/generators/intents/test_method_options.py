"""The intents Config's choices a user (and the demo) makes instead of calling the generator:
which categories, which seed passages, and the small-model query style, honoured by Method.run's
plan; a wrong value is a usage error naming the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from irforge.cli.app import build_app
from irforge.core import beir
from irforge.core.errors import IrforgeError
from irforge.core.records import Doc
from irforge.data.sample import sample_docs
from irforge.generators.intents.method import Config, prepare
from irforge.generators.intents.steps import PICK_NEED_TEMPLATE
from irforge.generators.intents.styles import STYLES, with_style
from irforge.steps.method import Inputs

DISASTER = [f"d0{i}" for i in range(1, 9)]


def _inputs() -> Inputs:
    return Inputs(Path("corpus.jsonl"), docs=tuple(sample_docs()))


def test_categories_seed_prefixes_and_query_style_shape_the_plan() -> None:
    config = Config(intents=["QA", "FC"], taxonomy="disastir", categories=["MH", "Geo"],
                    seed_prefixes=DISASTER, query_style="small-model")
    plan = prepare(config, _inputs())
    # in the taxonomy's own order
    assert [c.key for c in plan.taxonomy.taxonomy.categories] == ["Geo", "MH"]
    assert plan.seeds is not None and {d.doc_id[:3] for d in plan.seeds} == set(DISASTER)
    assert len(plan.docs) == 18  # the corpus stays whole: only the seeds are chosen
    qa, fc = plan.intents
    assert (qa.needs_template, qa.query_template, qa.forms) == (
        PICK_NEED_TEMPLATE, "intents.sentence_query", ["question"])
    assert fc.forms == ["claim-supported"]


def test_the_defaults_leave_the_intents_taxonomy_and_seeds_as_declared() -> None:
    plan = prepare(Config(intents=["QA"], taxonomy="disastir"), _inputs())
    assert len(plan.taxonomy.taxonomy.categories) == 8 and plan.seeds is None
    assert plan.intents[0].query_template == "intents.qa_query"
    assert with_style("default", plan.intents) == plan.intents
    assert set(STYLES) == {"default", "small-model"}


@pytest.mark.parametrize(("options", "message"), [
    ({"categories": ["MH", "Nope"]}, "unknown categories ['Nope'] of taxonomy 'disastir'"),
    ({"seed_prefixes": ["zz"]}, "seed_prefixes ['zz']: no passage id of the corpus starts"),
])
def test_a_category_or_seed_prefix_the_corpus_lacks_is_a_usage_error(
        options: dict, message: str) -> None:
    with pytest.raises(IrforgeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        prepare(Config(taxonomy="disastir", **options), _inputs())


def _usage_error(result: Result, message: str) -> None:
    """The verb stopped on a usage error (exit 2 from the command line) naming ``message``."""
    assert isinstance(result.exception, IrforgeError), result.output
    assert result.exception.exit_code == 2 and message in str(result.exception)


def test_the_verb_takes_the_options_and_refuses_an_unknown_query_style(tmp_path: Path) -> None:
    beir.write_corpus(tmp_path / "corpus.jsonl", [
        Doc("d01", "The Calder authority issues a flood warning when heavy rain raises the river "
                   "gauge at Marrowbridge above 3.2 metres. Residents of the four villages "
                   "downstream are told by text message and by sirens within thirty minutes."),
        Doc("x01", "A flood of letters reached the editor of the Westvale Herald after the "
                   "storm of March 2021. Most readers asked why the harbour wall had not been "
                   "repaired before the winter, as the council had promised in its plan.")])
    app, runner = build_app(), CliRunner()
    flags = ["build", "intents", str(tmp_path / "bench"), "--corpus",
             str(tmp_path / "corpus.jsonl"), "--intents", "QA", "--taxonomy", "disastir",
             "--dry-run", "--json", "--model", "openai/gpt-4o-mini", "--cache",
             str(tmp_path / "cache.sqlite")]
    both = runner.invoke(app, [*flags, "--categories", "MH", "--query-style", "small-model"])
    one = runner.invoke(app, [*flags, "--categories", "MH", "--seed-prefixes", "d0"])
    assert both.exit_code == 0 and one.exit_code == 0, both.output + one.output
    # one MH task, per task 2: two queries x two stages, from two seed passages or from one
    assert '"requests": 4' in both.stdout and '"requests": 4' in one.stdout
    none = runner.invoke(app, [*flags, "--categories", "MH", "--seed-prefixes", "zz"])
    _usage_error(none, "no passage id of the corpus starts")
    bad = runner.invoke(app, [*flags, "--query-style", "tiny"])
    _usage_error(bad, "--query-style: Value error, unknown query style 'tiny'")
    assert not (tmp_path / "bench" / "queries.jsonl").exists()
