"""A run killed with SIGKILL resumes from the cache without repeating a finished request."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from irforge.llm import Engine
from irforge.testing.crash import kill_after_requests
from irforge.testing.scripted import Action, Script, ScriptedServer
from tests.llm.resume_worker import Label, items

ROOT = Path(__file__).resolve().parents[2]
COUNT = 40


def test_sigkill_mid_run_then_resume_repeats_no_finished_request(transport: str,
                                                                 tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    script = Script(default=Action.answer({"label": 1}), latency=0.15)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with ScriptedServer(script) as server:
        worker = subprocess.Popen(
            [sys.executable, "-m", "tests.llm.resume_worker", server.url, str(cache), str(COUNT),
             transport],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        kill_after_requests(worker, server, 10)
        assert worker.returncode == -signal.SIGKILL
        sent_before = len(server.log)
        assert 10 <= sent_before < COUNT, "the kill must land mid-run"

        with Engine("openai/scripted", api_base=server.url, cache_path=cache,
                    progress=False, transport=transport) as engine:
            keys = {engine.request_key_for(item, "llm.try", Label): item["prompt"]
                    for item in items(COUNT)}
            assert engine.cache is not None
            finished = {keys[key] for key in engine.cache.stored_keys()}
            assert len(finished) >= 8, "answers must be committed as they arrive"
            results = engine.run(items(COUNT), "llm.try", Label, step="resume")
        resumed = [entry.first_user for entry in server.log[sent_before:]]

    assert all(result.status == "ok" for result in results)
    assert not finished & set(resumed), "a finished request was sent again"
    assert len(resumed) == COUNT - len(finished)
    assert sorted(set(resumed) | finished) == sorted(item["prompt"] for item in items(COUNT))
