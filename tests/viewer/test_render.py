"""The explorer's embedded data can never end or re-open its script element."""

from __future__ import annotations

import json
import re
from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.core.records import Query
from irforge.data.sample import write_seed_benchmark
from irforge.viewer.render import write_viewer

HOSTILE = ("<!--<script>", "</script><script>alert(1)</script>", "a & b ]]> \u2028 end")


def test_a_query_holding_script_markup_still_renders(tmp_path: Path) -> None:
    """Issue 37: a query with ``<!--<script>`` switched the HTML parser into its escaped
    state, so the data element swallowed the page's script and nothing rendered."""
    write_seed_benchmark(tmp_path / "b")
    bench = Benchmark(tmp_path / "b")
    queries = list(bench.queries())
    bench.write_queries([*queries[:-3], *(Query(q.query_id, text, q.metadata)
                                          for q, text in zip(queries[-3:], HOSTILE,
                                                             strict=True))])
    path, _ = write_viewer(tmp_path / "b")
    page = path.read_text(encoding="utf-8")
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>', page,
                     re.DOTALL)
    assert data is not None
    assert "<" not in data.group(1) and ">" not in data.group(1)
    texts = json.dumps(json.loads(data.group(1)), ensure_ascii=False)
    assert all(json.dumps(text, ensure_ascii=False)[1:-1] in texts for text in HOSTILE)
    assert page.count("<script") == 2  # the data element and the page's own script only
