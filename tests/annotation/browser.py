"""People in headless Chromium (Playwright, Debian's chromium) on the session's Label Studio:
they join the organization by its invite link or log in, open a project's label stream, read
what each task shows, click labelled choices and submit. Screenshots are kept when asked."""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 1000}
WAIT_MS = 90_000  # a loaded machine: the labeling app can take long to build a page
SUBMIT = "bottombar-submit-button"  # Label Studio's test id of the Submit button
MODAL = ".lsf-modal-ls_visible"  # the project's instructions, shown before the first task


@dataclass(frozen=True)
class Person:
    """An annotator account: what they type on the login page."""

    email: str
    password: str


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium browser (Debian's package, never a downloaded one)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"chromium not found at {CHROMIUM}: `apt-get install -y chromium`",
                    pytrace=False)
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def invite_link(url: str, token: str) -> str:
    """The organization's invite link (``GET /api/invite``), as an admin shares it."""
    request = urllib.request.Request(f"{url}/api/invite",
                                     headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return url + json.load(response)["invite_url"]


def sign_up(browser: Any, link: str, person: Person) -> Any:
    """A new member joins through the invite link; returns their logged-in browser context."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(link)
    page.fill("input[name=email]", person.email)
    page.fill("input[name=password]", person.password)
    page.select_option("select[name=how_find_us]", "Friend or coworker")
    page.click("label[for=allow_newsletters_visual]")  # no newsletter
    with page.expect_navigation(timeout=WAIT_MS):
        page.click("button[type=submit]")
    assert "/user/signup" not in page.url, page.locator("body").inner_text()[:500]
    page.close()
    return context


def log_in(browser: Any, url: str, person: Person) -> Any:
    """An existing account logs in on the login page; returns the browser context."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"{url}/user/login/")
    page.fill("input[name=email]", person.email)
    page.fill("input[name=password]", person.password)
    with page.expect_navigation(timeout=WAIT_MS):
        page.click("button[type=submit]")
    assert "/user/login" not in page.url, page.locator("body").inner_text()[:500]
    page.close()
    return context


def keep_screenshot(page: Any, path: Path) -> None:
    """The whole page as a PNG, copied to $IRFORGE_SCREENSHOTS when that is set."""
    page.screenshot(path=str(path), full_page=True)
    keep = os.environ.get("IRFORGE_SCREENSHOTS")
    if keep:
        shutil.copy(path, Path(keep) / path.name)


@dataclass(frozen=True)
class TaskView:
    """One task as a person saw it before answering."""

    task_id: int
    data: Mapping[str, Any]
    text: str  # the page's visible text
    instructions: str  # the instructions dialog's text ("" after the first task)
    labelled: int  # radio buttons inside a label showing one of the expected choices
    radios: int  # every radio button on the page
    checked: int  # radio buttons already selected when the task opened
    answered: tuple[str, ...]  # the choices this person clicked


def _is_next_task(response: Any) -> bool:
    return "/api/dm/actions" in response.url and "next_task" in response.url


def _is_annotation(response: Any) -> bool:
    return "/annotations" in response.url and response.request.method == "POST"


def _read(page: Any, task: Mapping[str, Any], marker: str | Sequence[str],
          shown: Sequence[str], shot: Path | None) -> tuple[str, str, int, int, int]:
    """Wait for the task to render; (text, instructions, labelled, radios, checked)."""
    for field in (marker,) if isinstance(marker, str) else marker:
        first_line = str(task["data"][field]).splitlines()[0][:60]
        page.get_by_text(first_line).first.wait_for(timeout=WAIT_MS)
    page.get_by_text(shown[-1]).first.wait_for(timeout=WAIT_MS)
    instructions = ""
    modal = page.locator(MODAL)
    if modal.count():
        instructions = modal.inner_text()
        modal.locator("button[aria-label='Close modal']").click()
        modal.wait_for(state="hidden", timeout=WAIT_MS)
    if shot is not None:
        keep_screenshot(page, shot)
    radios = page.locator("input[type=radio]")
    labelled = [page.locator("label", has_text=text).locator("input[type=radio]")
                for text in shown]
    return (page.locator("body").inner_text(), instructions,
            sum(choice.count() for choice in labelled), radios.count(),
            sum(radio.is_checked() for radio in radios.all()))


def label_stream(context: Any, url: str, project_id: int, marker: str | Sequence[str],
                 shown: Sequence[str],
                 answer: Callable[[Mapping[str, Any]], Sequence[str]],
                 shot: Path | None = None) -> list[TaskView]:
    """Open the project's label stream ("Label All Tasks") and answer every task it serves:
    ``answer(task)`` names the shown choices to click. ``marker`` is a data field (or fields,
    when one repeats across tasks) whose text tells that the task is on screen; the first
    task is screenshot to ``shot``."""
    page = context.new_page()
    views: list[TaskView] = []
    try:
        with page.expect_response(_is_next_task, timeout=WAIT_MS) as served:
            page.goto(f"{url}/projects/{project_id}/data?labeling=1")
        while True:
            if served.value.status != 200:
                break  # "No More Tasks Left in Queue"
            task = served.value.json()
            if "id" not in task:
                break
            text, instructions, labelled, radios, checked = _read(
                page, task, marker, shown, shot if not views else None)
            picks = tuple(answer(task))
            for choice in picks:
                page.locator("label", has_text=choice).first.click()
            with page.expect_response(_is_next_task, timeout=WAIT_MS) as served, \
                    page.expect_response(_is_annotation, timeout=WAIT_MS) as saved:
                page.get_by_test_id(SUBMIT).click()
            assert saved.value.status == 201, saved.value.text()
            views.append(TaskView(int(task["id"]), task["data"], text, instructions, labelled,
                                  radios, checked, picks))
    finally:
        page.close()
    return views
