"""``irforge run`` with three method stages at once against a provider that allows R requests
per window: the stages' engines share one pool and one rate budget, so the run sends at most
R per window in total (the server refuses nothing) and each stage still counts its own."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import irforge
from irforge.testing.scripted import ScriptedServer
from tests.recipe.test_run_all_methods import DOCS, good_script

R, WINDOW = 10, 1.0
RECIPE = """corpus: {{input: docs, max_tokens: 1024, passage_dedup: false}}
model: openai/scripted
api_base: {url}
concurrency: 8
methods:
  intents: {{intents: [QA], per_task: 4, taxonomy: lexical}}
  logical: {{types: [2in], per_type: 8, passage_sentences: 0}}
  multicon: {{n: 3, limit: null, domain: books}}
pool: {{retrievers: [bm25], k: 3}}
label: {{strategies: [zero_shot], controls: false}}
eval: {{retrievers: [bm25], metrics: [ndcg@10]}}
"""


def test_parallel_method_stages_keep_the_providers_limit_together(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for key, title, text, _, _ in DOCS:
        (docs / f"{key}.txt").write_text(f"{title}\n\n{text}\n", encoding="utf-8")
    script = replace(good_script(), rate_requests=R, rate_window=WINDOW)
    with ScriptedServer(script) as server:
        (tmp_path / "recipe.yaml").write_text(RECIPE.format(url=server.url), encoding="utf-8")
        report = irforge.run(tmp_path / "recipe.yaml", tmp_path / "bench",
                             echo=lambda line: None)
        log = server.log
        refused = server.app.limits.refused
    status = {r.name: (r.status, r.detail) for r in report.results}
    assert report.exit_code == 0, status
    builds = {r.name: r.requests for r in report.results if r.name.startswith("build-")}
    assert set(builds) == {"build-intents", "build-logical", "build-multicon"}
    assert all(builds.values()), builds
    assert refused == 0, f"{refused} of {len(log)} requests were refused (429)"
    # what the stages counted is what the provider saw: per-stage accounting adds up
    assert sum(r.requests for r in report.results) == len(log)
    times = sorted(request.received for request in log)
    # the provider's bucket holds R and refills R per window: no window sees more than 2R
    busiest = max(sum(1 for t in times[i:] if t < start + WINDOW)
                  for i, start in enumerate(times))
    assert busiest <= 2 * R, busiest
