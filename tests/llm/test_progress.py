"""The progress bar keeps count, rate and ETA readable on an 80-column terminal."""

from __future__ import annotations

import io
import re
import time

from rich.console import Console

from irforge.llm.progress import RunProgress, stats_text


def test_stats_text() -> None:
    assert stats_text(5, 20, 2.5, 0.01) == "5/20 2.5/s ETA 0:00:06 $0.0100"
    assert stats_text(0, 20, None, 0.0) == "0/20 ?/s ETA ? $0.0000"
    assert stats_text(3, 3, None, 0.0, "budget stop").endswith("ETA 0:00:00 $0.0000 budget stop")


def test_bar_at_80_columns_shows_count_rate_and_eta() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    with RunProgress(True, "relevance.direct (openai/gpt-4o-mini)", 340,
                     console=console) as bar:
        bar.advance(40, 0.0)  # found in the cache: not part of the rate
        time.sleep(0.2)
        bar.advance(10, 0.0123)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue()).replace("\r", "\n")
    last = [line for line in text.splitlines() if line.strip()][-1]
    assert len(last) <= 80, last
    assert "50/340" in last and "$0.0123" in last
    rate = float(re.search(r"([\d.]+)/s", last).group(1))
    assert 10 < rate < 60  # 10 new items in about 0.2 s, the 40 cached ones excluded
    assert re.search(r"ETA \d+:\d\d:\d\d", last), last
