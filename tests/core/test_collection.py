"""Which folders under a root are benchmarks: the one discovery rule every verb uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.core.collection import benchmark_folders, for_each, is_benchmark
from irforge.core.errors import EmptyResultError, IrforgeError


def _bench(folder: Path, marker: str = "queries.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if marker == "qrels":
        (folder / "qrels").mkdir()
    else:
        (folder / marker).write_text("", encoding="utf-8")
    return folder


def test_a_benchmark_folder_is_itself_alone(tmp_path: Path) -> None:
    root = _bench(tmp_path / "bench")
    _bench(root / "nested")  # a benchmark's own subfolders are not searched
    found = benchmark_folders(root)
    assert found.folders == (root,) and not found.is_collection
    assert found.name(root) == "bench"


def test_a_run_folder_is_its_method_folders_in_path_order(tmp_path: Path) -> None:
    root = tmp_path / "run"
    (root / "eval").mkdir(parents=True)  # outputs are no benchmark
    (root / "corpus.jsonl").write_text("", encoding="utf-8")  # a corpus alone is none either
    _bench(root / "multicon")
    _bench(root / "intents", "failures.jsonl")  # a build that kept nothing is still listed
    _bench(root / "logical", "qrels")
    _bench(root / ".irforge" / "cache")  # hidden folders are skipped
    _bench(root / "demo" / "multicon" / "people")  # irforge demo nests one level more
    found = benchmark_folders(root)
    assert found.is_collection
    assert [found.name(f) for f in found.folders] == [
        "demo/multicon/people", "intents", "logical", "multicon"]
    assert not is_benchmark(root) and is_benchmark(root / "logical")


def test_a_folder_with_no_benchmark_is_returned_alone_and_a_missing_one_is_an_error(
        tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert benchmark_folders(empty).folders == (empty,)  # each verb says what is missing
    with pytest.raises(IrforgeError, match="not found"):
        benchmark_folders(tmp_path / "nope")


def test_for_each_goes_on_after_a_failure_and_reports_the_highest_exit_code(
        tmp_path: Path) -> None:
    root = tmp_path / "run"
    for name in ("a", "b", "c"):
        _bench(root / name)

    def action(name: str, folder: Path) -> str:
        if name == "b":
            raise EmptyResultError("nothing here")
        return folder.name

    outcomes = for_each(benchmark_folders(root), action)
    assert outcomes.done == [("a", "a"), ("c", "c")]
    assert [name for name, _ in outcomes.failed] == ["b"] and outcomes.exit_code == 3
    with pytest.raises(IrforgeError, match="b: nothing here") as raised:
        outcomes.raise_if_failed()
    assert raised.value.exit_code == 3
    single = benchmark_folders(root / "b")
    with pytest.raises(EmptyResultError):  # one folder: its own error, unchanged
        for_each(single, action)
