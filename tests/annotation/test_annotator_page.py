"""The annotator's page in a real Label Studio, opened in headless Chromium: labelled choices,
the guidelines, the explained intent, and no answer preselected (predictions hidden)."""

from __future__ import annotations

from pathlib import Path

from irforge.annotation.connection import LabelStudioSettings, connect
from irforge.annotation.labeling import get_job
from irforge.annotation.projects import iter_tasks
from irforge.annotation.pull import pull
from irforge.annotation.push import push

from .browser import WAIT_MS, Person, chromium, keep_screenshot, log_in
from .helpers import relevance_bench

SHOWN = ("0 · not relevant", "1 · related, does not answer", "2 · partly answers",
         "3 · fully answers")


def test_relevance_task_page_shows_meaning_guidelines_and_no_preselected_answer(
        tmp_path: Path, label_studio) -> None:
    connection = connect(LabelStudioSettings(label_studio.url, label_studio.token))
    bench = relevance_bench(tmp_path, queries=4)
    result = push(bench, get_job("relevance"), connection, n=4, seed=0)
    task = next(iter(iter_tasks(connection, result.project_id)))
    shot = tmp_path / "annotator.png"
    admin = Person(label_studio.admin_email, label_studio.admin_password)
    with chromium() as browser:
        page = log_in(browser, label_studio.url, admin).new_page()
        page.goto(f"{label_studio.url}/projects/{result.project_id}/data"
                  f"?task={task['id']}")
        try:
            page.get_by_text("3 · fully answers").wait_for(timeout=WAIT_MS)
        finally:
            keep_screenshot(page, shot)
        text = page.locator("body").inner_text()
        choices = [page.locator("label", has_text=shown).locator("input[type=radio]")
                   for shown in SHOWN]
        count = sum(choice.count() for choice in choices)
        checked = sum(choice.is_checked() for choice in choices)
        # answer as a person: the stored value is the grade (the choice's alias)
        page.get_by_text("2 · partly answers").click()
        with page.expect_response(lambda r: "/annotations" in r.url
                                  and r.request.method == "POST", timeout=WAIT_MS):
            page.get_by_role("button", name="Submit").click()
    for shown in (*SHOWN, "Guidelines", "Judge this passage alone"):
        assert shown in text, shown
    assert "a user states a claim" in text or "a user asks a question" in text
    assert count == 4 and checked == 0  # four labelled choices, nothing preselected
    pulled = pull(bench, get_job("relevance"), connection, result.project_id)
    assert pulled.new_labels == 1 and pulled.invalid == 0
    [human] = [j for j in bench.judgments() if j.source == "human"]
    assert (human.query_id, human.label) == (task["data"]["query_id"], 2.0)
