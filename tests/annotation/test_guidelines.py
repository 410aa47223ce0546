"""What an annotator sees, without a server: labelled choices (the stored value stays the
grade), guidelines on the page, intent codes explained, no preselected LLM answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.annotation.guidelines import GUIDELINES, instructions_html
from irforge.annotation.items import bench_items
from irforge.annotation.labeling import get_job, list_jobs, parse_config
from irforge.annotation.push import task_for

from .helpers import relevance_bench


@pytest.mark.parametrize("name", list_jobs())
def test_every_job_has_labelled_choices_and_guidelines_on_the_page(name: str) -> None:
    job = get_job(name)
    for control in job.config.controls.values():
        assert len(control.shown) == len(control.values)
        for shown, value in zip(control.shown, control.values, strict=True):
            assert (shown != value and value in shown.replace("not_distributed", "no")) \
                or len(shown.split()) >= 2, (name, shown, value)
    assert GUIDELINES[name]
    xml = job.config.xml
    assert '<Header value="Guidelines"' in xml
    assert all(rule in xml.replace("&apos;", "'").replace("&quot;", '"')
               for rule in GUIDELINES[name])
    assert parse_config(xml).controls == job.config.controls  # the block adds no variable
    assert 'selected="true"' not in xml
    assert GUIDELINES[name][0].replace("'", "&#x27;") in instructions_html(name, "x")


def test_relevance_choices_show_meaning_and_store_the_grade() -> None:
    job = get_job("relevance")
    control = job.config.controls["relevance"]
    assert control.values == ("0", "1", "2", "3")
    assert control.shown[3] == "3 · fully answers" and control.shown[0] == "0 · not relevant"
    assert job.label_values == {"0": 0.0, "1": 1.0, "2": 2.0, "3": 3.0}


def test_tasks_hide_the_llm_labels_unless_a_review_round_asks(tmp_path: Path) -> None:
    bench = relevance_bench(tmp_path)
    job = get_job("relevance")
    item = bench_items(bench, job)[1]
    assert "predictions" not in task_for(item, job)
    review = task_for(item, job, show_predictions=True)
    assert review["predictions"][-1]["model_version"] == "ensemble"
    # the intent code is explained on the page
    assert item.data["context"].startswith("intent FC: a user states a claim")
