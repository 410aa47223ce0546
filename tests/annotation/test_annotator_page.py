"""The annotator's page in a real Label Studio, opened in headless Chromium: labelled choices,
the guidelines, the explained intent, and no answer preselected (predictions hidden)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from irforge.annotation.connection import LabelStudioSettings, connect
from irforge.annotation.labeling import get_job
from irforge.annotation.projects import iter_tasks
from irforge.annotation.pull import pull
from irforge.annotation.push import push

from .helpers import relevance_bench

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOWN = ("0 · not relevant", "1 · related, does not answer", "2 · partly answers",
         "3 · fully answers")
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run"]


def test_relevance_task_page_shows_meaning_guidelines_and_no_preselected_answer(
        tmp_path: Path, label_studio) -> None:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"chromium not found at {CHROMIUM}: `apt-get install -y chromium`",
                    pytrace=False)
    connection = connect(LabelStudioSettings(label_studio.url, label_studio.token))
    bench = relevance_bench(tmp_path, queries=4)
    result = push(bench, get_job("relevance"), connection, n=4, seed=0)
    task = next(iter(iter_tasks(connection, result.project_id)))
    shot = tmp_path / "annotator.png"
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(f"{label_studio.url}/user/login/")
            page.fill("input[name=email]", label_studio.admin_email)
            page.fill("input[name=password]", label_studio.admin_password)
            with page.expect_navigation(timeout=60_000):
                page.click("button[type=submit]")
            assert "/user/login" not in page.url, page.locator("body").inner_text()[:500]
            page.goto(f"{label_studio.url}/projects/{result.project_id}/data"
                      f"?task={task['id']}")
            try:
                page.get_by_text("3 · fully answers").wait_for(timeout=90_000)
            finally:
                page.screenshot(path=str(shot), full_page=True)
                if os.environ.get("IRFORGE_SCREENSHOTS"):
                    shutil.copy(shot, Path(os.environ["IRFORGE_SCREENSHOTS"]) / shot.name)
            text = page.locator("body").inner_text()
            choices = [page.locator("label", has_text=shown).locator("input[type=radio]")
                       for shown in SHOWN]
            count = sum(choice.count() for choice in choices)
            checked = sum(choice.is_checked() for choice in choices)
            # answer as a person: the stored value is the grade (the choice's alias)
            page.get_by_text("2 · partly answers").click()
            with page.expect_response(lambda r: "/annotations" in r.url
                                      and r.request.method == "POST", timeout=60_000):
                page.get_by_role("button", name="Submit").click()
        finally:
            browser.close()
    keep = os.environ.get("IRFORGE_SCREENSHOTS")
    if keep:
        shutil.copy(shot, Path(keep) / shot.name)
    for shown in (*SHOWN, "Guidelines", "Judge this passage alone"):
        assert shown in text, shown
    assert "a user states a claim" in text or "a user asks a question" in text
    assert count == 4 and checked == 0  # four labelled choices, nothing preselected
    pulled = pull(bench, get_job("relevance"), connection, result.project_id)
    assert pulled.new_labels == 1 and pulled.invalid == 0
    [human] = [j for j in bench.judgments() if j.source == "human"]
    assert (human.query_id, human.label) == (task["data"]["query_id"], 2.0)
