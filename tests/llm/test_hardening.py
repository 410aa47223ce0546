"""Issue 17 through the real HTTP path: secrets never stored, the provider key used, identical
requests coalesced, long waits capped and reported, failing runs exit non-zero."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.records import Failure
from irforge.llm import Engine
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

KEY = "sk-proj-ZZtestSECRETkey0123456789"
FAST = {"backoff_initial": 0.01, "backoff_max": 0.05, "timeout": 2.0, "progress": False}
ROOT = Path(__file__).resolve().parents[2]


class Label(BaseModel):
    label: int


def engine_for(server: ScriptedServer, tmp_path: Path, **options) -> Engine:
    return Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "cache.sqlite",
                  **{**FAST, **options})


def test_key_from_openai_api_key_is_sent_and_never_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IRFORGE_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    script = Script(default=Action.answer({"label": 1}), api_key=KEY, rules=(
        Rule("item-echo", (Action.echo_headers(500),)),
        Rule("item-leak", (Action.answer(f'{{"label": "Bearer {KEY}"}}'),)),))
    bench = Benchmark(tmp_path / "bench")
    with ScriptedServer(script) as server, engine_for(server, tmp_path, max_retries=1,
                                                      max_reasks=0) as engine:
        results = engine.run([{"prompt": p} for p in ("item-ok", "item-echo", "item-leak")],
                             "llm.try", Label, step="t")
        bench.add_failures(Failure("t", str(i), r.error or "", r.raw)
                           for i, r in enumerate(results) if r.status != "ok")
        bench.record_step("t", {"engine": engine.manifest_entry(),
                                "note": f"Authorization: Bearer {KEY}"})
    assert [r.status for r in results] == ["ok", "error", "invalid"]  # no 401: key was sent
    assert "authorization" in (results[1].error or "").lower()  # the echo arrived, blanked
    stored = [bench.failures_path, bench.manifest_path, tmp_path / "cache.sqlite"]
    for path in stored:
        assert KEY.encode() not in path.read_bytes(), path
    assert "***" in bench.failures_path.read_text(encoding="utf-8")
    assert all(KEY not in (r.error or "") + (r.raw or "") for r in results)


def test_without_any_key_a_key_checking_server_refuses_and_the_run_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("IRFORGE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with ScriptedServer(Script(api_key=KEY)) as server, \
            engine_for(server, tmp_path, concurrency=1) as engine:
        results = engine.run([{"prompt": f"q{i}"} for i in range(3)], "llm.try", Label)
        assert len(server.log) == 1  # 401 is fatal: nothing more is sent
    assert all(r.status == "error" for r in results)


def test_identical_requests_in_flight_are_sent_once(tmp_path: Path) -> None:
    items = [{"prompt": "same"}] * 3 + [{"prompt": "other"}]
    with ScriptedServer(Script(default=Action.answer({"label": 1}), latency=0.3)) as server, \
            engine_for(server, tmp_path, concurrency=4) as engine:
        results = engine.run(items, "llm.try", Label)
        assert len(server.log) == 2
    assert [r.status for r in results] == ["ok"] * 4
    assert engine.total.requests == 2 and engine.total.cache_hits == 2


def test_a_one_hour_retry_after_is_capped_and_reported(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    script = Script(rules=(Rule("slow", (Action.error(429, retry_after=3600),
                                         Action.answer({"label": 2}))),))
    with ScriptedServer(script) as server, engine_for(server, tmp_path, max_wait=0.2,
                                                      wait_report_after=0.1) as engine:
        [result] = engine.run([{"prompt": "slow"}], "llm.try", Label)
        notes = engine.manifest_entry()["notes"]
    assert result.status == "ok" and result.value == Label(label=2)
    assert any("3600" in note and "0.2" in note for note in notes)
    err = capfd.readouterr().err
    assert "3600" in err and "HTTP 429" in err


def test_a_hanging_request_is_reported_while_it_hangs(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    script = Script(rules=(Rule("hang", (Action.hang(30), Action.answer({"label": 3}))),))
    with ScriptedServer(script) as server, engine_for(server, tmp_path, timeout=1.5,
                                                      wait_report_after=0.5) as engine:
        [result] = engine.run([{"prompt": "hang"}], "llm.try", Label)
    assert result.status == "ok" and result.retries == 1
    assert "waiting for a request open" in capfd.readouterr().err


def test_a_budget_without_a_price_is_refused(tmp_path: Path) -> None:
    with ScriptedServer(Script()) as server:
        with pytest.raises(IrforgeError, match="price-per-mtok"):
            engine_for(server, tmp_path, budget_usd=0.01)
        priced = engine_for(server, tmp_path, budget_usd=0.01, price_per_mtok=(1.0, 2.0))
        priced.close()


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run([sys.executable, "-m", "irforge", *args], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.slow
def test_cli_exit_codes_for_all_failed_budget_stop_and_unpriced_budget(tmp_path: Path) -> None:
    script = Script(default=Action.answer({"answer": "x"}),
                    rules=(Rule("broken", (Action.error(401),)),))
    with ScriptedServer(script) as server:
        common = ["--model", "openai/scripted", "--api-base", server.url,
                  "--cache", str(tmp_path / "c.sqlite")]
        failed = run_cli("llm", "try", "broken", *common, "--timeout", "2")
        assert failed.returncode == 5, failed.stderr
        assert "every LLM call failed" in failed.stdout + failed.stderr
        stopped = run_cli("llm", "try", "hello", *common, "--budget", "0.0000001",
                          "--price-per-mtok", "1000,1000")
        assert stopped.returncode == 4, stopped.stderr
        assert "budget" in stopped.stdout + stopped.stderr
        unpriced = run_cli("llm", "try", "hello", *common, "--budget", "1")
        assert unpriced.returncode == 2
        assert "--price-per-mtok" in " ".join((unpriced.stdout + unpriced.stderr).split())
        assert "Traceback" not in failed.stderr + stopped.stderr + unpriced.stderr


def test_embedded_model_honours_the_timeout(tmp_path: Path, embedded_model_path: Path) -> None:
    engine = Engine(cache_path=tmp_path / "c.sqlite", timeout=0.001, max_tokens=64,
                    progress=False)
    assert engine.spec.gguf_path == embedded_model_path
    [result] = engine.run([{"prompt": "Write a long story about rivers."}], "llm.try", Label)
    assert result.status == "error" and "timeout" in (result.error or "")
    assert result.attempts == 1  # a local deadline is not retried
    assert json.dumps(result.to_dict())  # the error is storable
