"""The viewer page opened from disk in a real headless Chromium: content, filters, screenshot."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Failure, Judgment, Qrel, Query

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-dev-shm-usage", "--no-first-run"]


def _bench(root: Path) -> Benchmark:
    bench = Benchmark(root)
    bench.write_corpus([Doc("d1", "Sirens sound on Quay Street at 2.1 metres.", "Flood plan"),
                        Doc("d2", "The library opens at nine.", "Library hours"),
                        Doc("d3", "Evacuation uses Ridge Road.", "Wildfire plan")])
    bench.write_queries([
        Query("q1", "when do flood sirens sound", {"type": "conjunction", "intent": "QA"}),
        Query("q2", "evacuation routes for officials", {
            "dimension": "audience", "condition_description": "Only texts for officials."}),
    ])
    bench.write_qrels([Qrel("q1", "d1", 2), Qrel("q1", "d2", 0), Qrel("q2", "d3", 1)])
    bench.add_judgments([
        Judgment("q1", "d1", 2, "llm", prompt_id="relevance.direct",
                 metadata={"strategy": "zero-shot"}),
        Judgment("q1", "d1", 0, "human", annotator="ann@example.org"),
        Judgment("q1", "d2", 0, "llm", metadata={"strategy": "zero-shot"}),
        Judgment("q1", "d2", 0, "human", annotator="ann@example.org"),
    ])
    bench.add_failures([Failure("relevance.zero-shot", "q2::d2", "llm invalid: not JSON")])
    bench.record_step("relevance", {"yield": [
        {"step": "relevance.zero-shot", "attempted": 3, "accepted": 2,
         "rejected": {"llm invalid": 1}}]})
    return bench


def test_viewer_renders_in_headless_chromium(tmp_path: Path) -> None:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"chromium not found at {CHROMIUM}: `apt-get install -y chromium` (the "
                    f"Makefile test target does it)", pytrace=False)
    from playwright.sync_api import sync_playwright

    bench = _bench(tmp_path / "bench")
    cli = subprocess.run([sys.executable, "-m", "irforge", "view", str(bench.root)],
                         capture_output=True, text=True, cwd=ROOT)
    assert cli.returncode == 0, cli.stderr
    page_path = bench.root / "view" / "index.html"
    shot = tmp_path / "viewer.png"
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(page_path.resolve().as_uri())
            assert page.locator("#counts").inner_text() == "2 of 2 queries"
            q1 = page.locator("details.query[data-id=q1]")
            q1.locator("summary").click()
            assert q1.locator("text=1 disagree").is_visible()
            row = q1.locator("tr[data-doc=d1]")
            assert "disagree" in (row.get_attribute("class") or "")
            headers = q1.locator("table.judged th").all_inner_texts()
            assert headers == ["passage", "qrels/test", "human:ann@example.org",
                               "llm:zero-shot"]
            assert row.locator("td").all_inner_texts()[1:] == ["2", "0", "2"]
            q2 = page.locator("details.query[data-id=q2]")
            q2.locator("summary").click()
            assert q2.locator(".instruction").inner_text() == (
                "instruction: Only texts for officials.")
            assert page.locator("#yield-table").inner_text().count("relevance.zero-shot") == 1
            assert "llm invalid: not JSON" in page.locator("#failures-table").inner_text()
            page.screenshot(path=str(shot), full_page=True)
            # filters: method, label, text search
            page.select_option("#f-method", "instructions")
            assert page.locator("#counts").inner_text() == "1 of 2 queries"
            page.select_option("#f-method", "")
            page.select_option("#f-label", "disagree")
            assert page.locator("details.query").evaluate_all(
                "nodes => nodes.map(n => n.dataset.id)") == ["q1"]
            page.select_option("#f-label", "")
            page.fill("#f-text", "evacuation")
            assert page.locator("#counts").inner_text() == "1 of 2 queries"
            assert not errors, errors
        finally:
            browser.close()
    _check_screenshot(shot)


def _check_screenshot(path: Path) -> None:
    """The screenshot is a real rendering: large, and not one flat colour."""
    from PIL import Image

    image = Image.open(path).convert("RGB")
    assert image.width >= 1200 and image.height >= 400
    colours = image.getcolors(maxcolors=1_000_000) or []
    assert len(colours) > 50
    # the dark header band is painted at the top
    r, g, b = image.getpixel((5, 5))
    assert (r, g, b) == (0x24, 0x42, 0x5F)
