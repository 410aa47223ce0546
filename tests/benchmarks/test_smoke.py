"""Every script in benchmarks/ runs end to end in its smoke mode (``--smoke``: tiny sizes), in
this process, so an import or API change breaks the tests instead of the next measurement.
export_agreement.py needs a built folder: tests/benchmarks/test_export_agreement.py runs it."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import pytest

import irforge

BENCHMARKS = Path(irforge.__file__).resolve().parents[1] / "benchmarks"
HELPERS = {"bench_smoke.py", "export_agreement.py"}  # not run here (see the docstring)
# a line each script prints once it measured something (smoke sizes: figures mean nothing)
PRINTS = {
    "agreement_speed.py": "irforge/peer time ratio",
    "chunk_memory.py": "growth_per_input_byte",
    "corpus.py": "passage dedup",
    "corpus_formats.py": "txt",
    "corpus_quality.py": "empty_titles",
    "gpu_eval.py": "HNSW build",
    "labeling.py": "labeling, cached re-run",
    "llama_batched.py": "tokens/s ratio batched",
    "llama_prefix_reuse.py": "answers byte-identical",
    "llm_engine.py": "engine's own CPU per request",
    "metrics.py": "speed-up irforge vs ranx",
    "recipe_throughput.py": "longest LLM stage",
    "retrieval.py": "rank_bm25 BM25Okapi",
    "significance.py": "bootstrap CI",
    "validity.py": "check      bm25 eval",
}


def test_every_script_has_a_smoke_check() -> None:
    scripts = {path.name for path in BENCHMARKS.glob("*.py")} - HELPERS
    assert scripts == set(PRINTS), "a new benchmark script needs its line in PRINTS"


@pytest.mark.parametrize("script", sorted(PRINTS))
def test_smoke_mode_runs(script: str, comlq_dir: Path, tmp_path: Path,
                         monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.chdir(tmp_path)  # whatever a script leaves behind goes to this test's folder
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    argv = [script, "--smoke"]
    if script in ("gpu_eval.py", "retrieval.py"):
        argv += ["--data", str(comlq_dir)]
    if script == "retrieval.py":
        argv += ["--cache", str(tmp_path / "embeddings")]
    monkeypatch.setattr(sys, "argv", argv)
    spec = importlib.util.spec_from_file_location(f"smoke_{script[:-3]}", BENCHMARKS / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    module.main()
    assert PRINTS[script] in capsys.readouterr().out
