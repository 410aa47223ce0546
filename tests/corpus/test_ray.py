"""The Ray backend on a real two-node Ray cluster (head + one worker node, 1 CPU each, no GPU)
started on 127.0.0.1 for this module: ``corpus build``, ``corpus pool`` and ``eval`` with a
dense retriever through ``--ray`` give the same outputs as the single-machine path."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import numpy as np
import pdfs
import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError, MissingExtraError
from irforge.data.sample import sample_corpus_dir, sample_queries, write_seed_benchmark
from irforge.scale.executor import BatchJob, cluster, ready

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = ("corpus.jsonl", "corpus_work/extract/documents.jsonl",
           "corpus_work/dedup/decisions.jsonl", "corpus_work/chunk/chunks.jsonl",
           "corpus_work/dedup_passages/report.jsonl")


LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


@pytest.fixture(scope="module")
def ray_env() -> Iterator[None]:
    """The environment of this module's Ray processes (they inherit it): token authentication
    on, no GPUs, this checkout's irforge; set before Ray first reads the token."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    cluster_env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
                   "RAY_USAGE_STATS_ENABLED": "0", "IRFORGE_RAY_NUM_GPUS": "0",
                   "PYTHONPATH": os.pathsep.join(paths), "HF_HUB_OFFLINE": "1",
                   "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    saved = {key: os.environ.get(key) for key in cluster_env}
    os.environ.update(cluster_env)
    try:
        pytest.importorskip("ray", reason="the 'ray' extra is missing: pip install irforge[ray]")
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def ray_address(ray_env: None) -> Iterator[str]:
    """A head node and one worker node on 127.0.0.1 (1 CPU each), started by Ray's own test
    cluster (``ray.cluster_utils.Cluster``) and stopped by pid when the module ends."""
    from ray._private.utils import get_ray_address_file
    from ray.cluster_utils import Cluster

    temp = Path(tempfile.mkdtemp(prefix="irr", dir="/tmp"))  # short: Ray's unix sockets
    # Cluster writes the head's address into Ray's default temp folder whatever temp_dir says,
    # and fails on a fresh machine where no Ray has run yet (no /tmp/ray): make it first
    Path(get_ray_address_file(None)).parent.mkdir(parents=True, exist_ok=True)
    node = {"node_ip_address": "127.0.0.1", "num_cpus": 1, "num_gpus": 0,
            "object_store_memory": 150 * 1024 * 1024}
    try:
        nodes = Cluster(initialize_head=True, head_node_args={
            **node, "include_dashboard": False, "temp_dir": str(temp)})
        try:
            nodes.add_node(**node)
            yield nodes.address
        finally:
            nodes.shutdown()
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _listening() -> dict[tuple[int, str], set[str]]:
    """(pid, name) of this process and each process it started -> the local addresses of its
    listening TCP and its UDP sockets."""
    import psutil

    found: dict[tuple[int, str], set[str]] = {}
    me = psutil.Process()
    for process in [me, *me.children(recursive=True)]:
        try:
            sockets = process.net_connections(kind="inet")
            name = process.name()
        except psutil.Error:  # ended meanwhile
            continue
        found[(process.pid, name)] = {
            entry.laddr.ip for entry in sockets
            if entry.status == psutil.CONN_LISTEN or entry.type == socket.SOCK_DGRAM}
    return found


def _assert_loopback_only(listening: dict[tuple[int, str], set[str]]) -> None:
    names = {name for (_, name), addresses in listening.items() if addresses}
    assert {"gcs_server", "raylet"} <= names and any(n.startswith("ray::") for n in names)
    exposed = {key: addresses - LOOPBACK for key, addresses in listening.items()
               if addresses - LOOPBACK}
    assert not exposed, f"Ray processes listening beyond 127.0.0.1: {exposed}"


def _input_folder(folder: Path) -> Path:
    """The sample documents, a near-copy of one (document dedup), a document repeating
    another's words (passage dedup only) and three PDFs, one of them unreadable."""
    folder.mkdir()
    for path in sample_corpus_dir().glob("*.txt"):
        shutil.copy(path, folder / path.name)
    first = (folder / "d01-flood-early-warning.txt").read_text(encoding="utf-8")
    (folder / "d01b-copy.txt").write_text(first.replace("procedure", "plan", 1), "utf-8")
    title, _, body = (folder / "d04-heatwave-advisory.txt").read_text("utf-8").partition("\n")
    words = [word if number % 5 or not word.isalpha() else "the"
             for number, word in enumerate(body.split(" "))]  # no 5-word shingle left
    (folder / "z-heat-notes.txt").write_text(f"Notes: {title}\n" + " ".join(words), "utf-8")
    pdfs.two_column_pdf(folder / "columns.pdf")
    pdfs.fpdf_report(folder / "report.pdf", [
        f"Storm surge maps for zone {zone} show which streets flood first. " * 6
        for zone in ("north", "south", "east")])
    pdfs.encrypted_pdf(folder / "locked.pdf")
    return folder


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(build_app(), list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


@pytest.fixture(scope="module")
def built(ray_address: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same input built on one machine (one process) and through the Ray cluster."""
    root = tmp_path_factory.mktemp("ray-build")
    source = _input_folder(root / "input")
    _invoke("corpus", "build", str(root / "local"), "--input", str(source), "--workers", "1")
    _invoke("corpus", "build", str(root / "ray"), "--input", str(source), "--ray", ray_address)
    return {"local": root / "local", "ray": root / "ray", "input": source, "root": root}


@pytest.mark.slow
def test_the_cluster_has_a_head_and_a_worker_node_on_loopback_only(ray_address: str) -> None:
    with cluster(ray_address) as executor:
        alive = [node for node in executor.ray.nodes() if node["Alive"]]
        assert len(alive) == 2
        assert {node["NodeManagerAddress"] for node in alive} == {"127.0.0.1"}
        assert executor.cpus == 2 and executor.gpus == 0 and executor.gpus_per_worker == 0
        _assert_loopback_only(_listening())


@pytest.mark.slow
def test_a_local_cluster_started_by_irforge_listens_on_loopback_only(ray_env: None) -> None:
    """``--ray local``: the GCS, raylet, agents, workers, actors and this driver listen on
    127.0.0.1 only, checked while a job's actors are running."""
    with cluster("local") as executor:
        assert executor.ray.util.get_node_ip_address() == "127.0.0.1"
        results = executor.map(BatchJob(partial(ready, list), batch_size=1), range(6))
        assert next(results) == 0
        listening = _listening()
        assert list(results) == [1, 2, 3, 4, 5]
    _assert_loopback_only(listening)


@pytest.mark.slow
def test_corpus_build_on_ray_equals_the_single_machine_build(built: dict[str, Path]) -> None:
    local, ray = built["local"], built["ray"]
    for name in OUTPUTS:
        assert (local / name).read_bytes() == (ray / name).read_bytes(), name
    decisions = [json.loads(line) for line in
                 (local / OUTPUTS[2]).read_text(encoding="utf-8").splitlines()]
    assert {row["doc_id"] for row in decisions if row["status"] == "duplicate"} == {"d01b-copy.txt"}
    removed = [json.loads(line) for line in (local / OUTPUTS[4]).read_text().splitlines()]
    assert "z-heat-notes.txt" in {row["_id"].rpartition("_")[0] for row in removed}
    skipped = [json.loads(line) for line in (local / OUTPUTS[1]).read_text().splitlines()
               if '"skipped"' in line]
    assert [row["file"] for row in skipped] == ["locked.pdf"]
    vectors = [np.load(folder / "corpus_work/dedup_passages/embeddings.npy")
               for folder in (local, ray)]
    assert vectors[0].shape[0] == len(list(Benchmark(local).corpus())) + len(removed)
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-5)


@pytest.mark.slow
def test_a_killed_ray_build_resumes_from_the_last_finished_shard(built: dict[str, Path],
                                                                 ray_address: str) -> None:
    """A kill during chunking: half the chunk log and a torn row; later stages never ran."""
    folder = built["root"] / "killed"
    shutil.copytree(built["ray"], folder)
    work = folder / "corpus_work"
    rows = (work / "chunk/chunks.jsonl").read_text(encoding="utf-8").splitlines()
    kept = len(rows) // 2
    (work / "chunk/chunks.jsonl").write_text(
        "\n".join(rows[:kept]) + "\n" + rows[kept][:40], encoding="utf-8")
    for stale in ("chunk/done.json", "dedup_passages", "write"):
        path = work / stale
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    (folder / "corpus.jsonl").unlink()
    output = _invoke("corpus", "build", str(folder), "--input", str(built["input"]),
                     "--ray", ray_address)
    assert '"newly_extracted": 0' in output and '"newly_decided": 0' in output
    assert f'"newly_chunked": {len(rows) - kept}' in output
    for name in OUTPUTS:
        assert (built["local"] / name).read_bytes() == (folder / name).read_bytes(), name


@pytest.mark.slow
def test_pool_and_eval_with_a_dense_retriever_on_ray_equal_the_single_machine(
        built: dict[str, Path], ray_address: str) -> None:
    pools = {}
    for mode in ("local", "ray"):
        bench = Benchmark(built["root"] / f"pool-{mode}")
        bench.write_corpus(Benchmark(built["local"]).corpus())
        bench.write_queries(sample_queries())
        extra = ["--ray", ray_address] if mode == "ray" else []
        _invoke("corpus", "pool", str(bench.root), "--retriever", "bm25", "--retriever",
                "dense", "--retriever", "dense-hnsw", "--k", "5", *extra)
        pools[mode] = (bench.root / "pool" / "candidates.jsonl").read_text(encoding="utf-8")
    assert pools["local"] == pools["ray"]
    assert '"dense-hnsw"' in pools["ray"]
    results = {}
    for mode in ("local", "ray"):
        folder = built["root"] / f"eval-{mode}"
        write_seed_benchmark(folder)
        extra = ["--ray", ray_address] if mode == "ray" else []
        _invoke("eval", str(folder), "--retriever", "dense", "--metric", "ndcg@10",
                "--metric", "recall@100", "--no-plots", *extra)
        systems = json.loads((folder / "eval" / "results.json").read_text())["systems"]
        run = (folder / "eval" / "runs" / "dense-minilm.trec").read_text().splitlines()
        results[mode] = ({s["name"]: (s["means"], s["per_query"]) for s in systems},
                         [line.split()[:3] for line in run])
    assert results["local"] == results["ray"]
    assert results["ray"][0]["dense-minilm"][0]["ndcg@10"] > 0.5


def test_without_ray_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingExtraError, match=r"irforge\[ray\]"), cluster("local"):
        pass


def test_an_address_where_no_cluster_answers_fails_fast_with_the_fix(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    with socket.socket() as idle:  # bound, not listening: nothing answers there
        idle.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{idle.getsockname()[1]}"
        for given, expected in ((address, "ray start --head"), ("nonsense", "HOST:PORT")):
            result = CliRunner().invoke(build_app(), ["corpus", "dedup", str(tmp_path),
                                                      "--ray", given])
            assert isinstance(result.exception, IrforgeError), result.output
            assert expected in str(result.exception)
