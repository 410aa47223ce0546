"""benchmarks/export_agreement.py on a demo-like folder: the demo's intents member generated
through the scripted server (its judge fails its controls, so the demo's eval leaves it out) and
the seed member evaluated by the demo's own eval stage (the demo's retrievers). Every exported
run is compared and the tools agree (exit 0); a run whose ties are left in the file exits 1; a
folder without evaluated runs exits 3."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import irforge
from irforge.core.bench import Benchmark
from irforge.eval.outputs import owned_runs

REPO = Path(irforge.__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "export_agreement.py"


def load_script() -> ModuleType:
    """The script as a module, to call ``main`` in this process (ranx compiles once)."""
    spec = importlib.util.spec_from_file_location("export_agreement_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script()


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's corpus, intents, seed and eval stages, the model being the scripted server."""
    from irforge.demo import DemoContext, stage_corpus, stage_function, stage_seed
    from irforge.demo.eval import run_eval_stage
    from irforge.testing.scripted import ScriptedServer
    from tests.demo.test_intents import _script

    root = tmp_path_factory.mktemp("agreement") / "demo"
    ctx = DemoContext(out=root, model="openai/scripted")
    stage_corpus(ctx)
    seeds = [doc for doc in ctx.bench.corpus()
             if doc.doc_id[:3] in {f"d0{i}" for i in range(1, 9)}]
    with pytest.MonkeyPatch.context() as patch, ScriptedServer(_script(seeds)) as server:
        patch.setenv("IRFORGE_CACHE", str(root.parent / "cache.sqlite"))
        patch.setenv("IRFORGE_API_BASE", server.url)
        stage_function("intents")(ctx)
    stage_seed(ctx)
    empty = Benchmark(root / "logical")  # a generator that kept nothing, as the demo's logical
    empty.write_queries([])
    empty.write_qrels([])
    summary = run_eval_stage(root)
    # the demo's eval: the intents qrels are not scored, the seed set is (BM25 and dense)
    assert "not scored (judge relevance failed its controls" in summary, summary
    assert "bm25" in summary and "dense" in summary, summary
    return root


def listed_runs(root: Path) -> set[tuple[str, str]]:
    """(member, run file) for every run an evaluation of a member of ``root`` wrote."""
    from irforge.core.collection import benchmark_folders

    found = benchmark_folders(root)
    return {(found.name(folder), path.name) for folder in found.folders
            for path in owned_runs(folder / "eval")[0]}


def test_every_exported_run_of_a_demo_like_folder_agrees(demo_folder: Path,
                                                        tmp_path: Path) -> None:
    report_path = tmp_path / "agreement.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(demo_folder), "--json", str(report_path)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)}, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(report_path.read_text(encoding="utf-8"))
    compared = {(run["member"], run["run"]) for run in report["runs"]}
    listed = listed_runs(demo_folder)
    assert len(listed) >= 2 and compared == listed  # every evaluated run, no other file
    assert {run for _, run in compared} == {"bm25-lucene.trec", "dense-minilm.trec"}
    seed_queries = len(list(Benchmark(demo_folder / "seed").queries()))
    for run in report["runs"]:
        assert run["queries"] == seed_queries and run["qrels"] == "test.qrels"
        pairs = {(d["metric"], tuple(d["tools"])) for d in run["differences"]}
        assert ("ndcg@10", ("ranx", "pytrec_eval")) in pairs
        assert ("judged@10", ("irforge", "ir_measures")) in pairs
        assert all(d["value"] <= 1e-9 for d in run["differences"])
    # the intents member (the root itself) is named with the reason it has no runs
    assert any("failed its control items" in reason for reason in report["skipped"].values())
    assert "AGREE: 2 exported run(s) of 1 member(s)" in done.stdout
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("member"))
    assert "irf~ranx" in header and "pytrec~irm" in header
    rows = [line for line in lines if line.startswith("seed ")]
    assert len(rows) == 2 * 6  # two runs, six measures
    assert "skipped demo: not scored" in done.stdout
    assert report["skipped"]["logical"].startswith("nothing to score: its test qrels judge no")


def _evaluated_copy(demo_folder: Path, tmp_path: Path) -> Path:
    root = tmp_path / "seed"
    shutil.copytree(demo_folder / "seed", root)
    return root


@pytest.mark.parametrize("damage", ["ties left unbroken", "scores changed into ties"])
def test_a_run_file_with_ties_exits_1_naming_the_tools(
        demo_folder: Path, tmp_path: Path, script: ModuleType, damage: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import irforge.export.trec as trec

    root = _evaluated_copy(demo_folder, tmp_path)
    real = trec.write_trec_run

    def broken(path: Path, run, tag: str | None = None) -> int:
        """As a writer without the tie break would: every score of a query equal (the file
        order kept) or the run's own tied scores in doc id order."""
        count = real(path, run, tag)
        lines = [line.split() for line in Path(path).read_text().splitlines()]
        if damage == "ties left unbroken":
            lines.sort(key=lambda cells: (cells[0], cells[2]))
        Path(path).write_text("".join(f"{q} Q0 {d} {r} 0.0 {t}\n" for q, _, d, r, _, t in lines))
        return count

    monkeypatch.setattr(trec, "write_trec_run", broken)
    code = script.main([str(root)])
    out = capsys.readouterr()
    assert code == 1, out.out + out.err
    assert "DISAGREE: seed/" in out.err and "ranx" in out.err.split("DISAGREE:")[1]
    assert "AGREE:" not in out.out


def test_a_folder_without_evaluated_runs_exits_3(tmp_path: Path, script: ModuleType,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from irforge.data.sample import write_seed_benchmark

    write_seed_benchmark(tmp_path / "bench")
    code = script.main([str(tmp_path / "bench")])
    out = capsys.readouterr()
    assert code == 3, out.out + out.err
    assert "NO EXPORTED RUNS" in out.err and "bench: not evaluated: no " in out.err
    assert "run `irforge eval FOLDER` first" in out.err


def test_a_missing_folder_is_a_usage_error(tmp_path: Path, script: ModuleType,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert script.main([str(tmp_path / "nowhere")]) == 2
    assert "nowhere not found" in capsys.readouterr().err


def test_instruction_mode_runs_use_their_mode_qrels(tmp_path: Path, script: ModuleType) -> None:
    qrels = tmp_path / "qrels"
    qrels.mkdir()
    for split in ("test", "og", "changed", "reversed"):
        (qrels / f"{split}.qrels").write_text("q 0 d 1\n", encoding="utf-8")
    runs = tmp_path / "runs"
    assert script.qrels_for(runs / "bm25.changed.trec", tmp_path, "test") == (
        qrels / "changed.qrels")
    assert script.qrels_for(runs / "bm25.trec", tmp_path, "og") == qrels / "og.qrels"
    assert script.qrels_for(runs / "dense-minilm.trec", tmp_path, None) == qrels / "test.qrels"


def test_a_member_whose_runs_cannot_be_exported_is_named(
        demo_folder: Path, tmp_path: Path, script: ModuleType,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _evaluated_copy(demo_folder, tmp_path)
    with (root / "eval" / "runs" / "bm25-lucene.trec").open("a", encoding="utf-8") as handle:
        handle.write("seed-d01 Q0 not-a-passage 101 0.001 bm25-lucene\n")
    assert script.main([str(root)]) == 2
    err = capsys.readouterr().err
    assert "error: member seed: " in err and "'not-a-passage' is not in the corpus" in err
    assert "Traceback" not in err
