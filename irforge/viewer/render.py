"""Write the explorer page: the data as embedded JSON plus a script that renders it."""

from __future__ import annotations

import json
from pathlib import Path

from irforge.core.jsonl import atomic_open
from irforge.viewer.data import viewer_data

#: characters JSON may carry as ``\\uXXXX`` that HTML's script parser reacts to: ``</script``,
#: ``<!--`` (script-data escape state, which hides a later ``</script>``), ``]]>``, ``&``
SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                 "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(data: object) -> str:
    """``data`` as JSON that is inert inside a ``<script>`` element, whatever its strings hold."""
    text = json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":"))
    return text.translate(str.maketrans(SCRIPT_UNSAFE))


def page_html(data: dict) -> str:
    """The page; the data's JSON escapes every ``<``, ``>`` and ``&``, so no text in it (a
    ``</script>``, a ``<!--<script>``) can end or re-open the script element."""
    from jinja2 import Environment, PackageLoader
    from markupsafe import Markup

    text = script_json(data)
    env = Environment(loader=PackageLoader("irforge.viewer", ""), autoescape=True)
    return env.get_template("page.html.j2").render(bench=data["bench"], data_json=Markup(text))


def write_viewer(bench_dir: Path, out: Path | None = None) -> tuple[Path, dict]:
    """Write ``out`` (default BENCH/view/index.html); returns the path and the data."""
    data = viewer_data(Path(bench_dir))
    path = Path(out) if out else Path(bench_dir) / "view" / "index.html"
    with atomic_open(path) as handle:
        handle.write(page_html(data))
    return path, data
