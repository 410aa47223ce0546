"""Write the explorer page: the data as embedded JSON plus a script that renders it."""

from __future__ import annotations

import json
from pathlib import Path

from irforge.core.jsonl import atomic_open
from irforge.viewer.data import viewer_data


def page_html(data: dict) -> str:
    """The page; ``</`` is escaped so no text in the data can close the script element."""
    from jinja2 import Environment, PackageLoader
    from markupsafe import Markup

    text = json.dumps(data, ensure_ascii=False, default=str,
                      separators=(",", ":")).replace("</", "<\\/")
    env = Environment(loader=PackageLoader("irforge.viewer", ""), autoescape=True)
    return env.get_template("page.html.j2").render(bench=data["bench"], data_json=Markup(text))


def write_viewer(bench_dir: Path, out: Path | None = None) -> tuple[Path, dict]:
    """Write ``out`` (default BENCH/view/index.html); returns the path and the data."""
    data = viewer_data(Path(bench_dir))
    path = Path(out) if out else Path(bench_dir) / "view" / "index.html"
    with atomic_open(path) as handle:
        handle.write(page_html(data))
    return path, data
