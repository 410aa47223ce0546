"""Which folders one explorer page shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from irforge.core.errors import IrforgeError
from irforge.viewer.folders import bench_folders


def _bench(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "queries.jsonl").write_text('{"_id": "q", "text": "t"}\n', encoding="utf-8")


def test_a_run_folder_shows_every_method_folder_nested_as_the_demo_writes(tmp_path):
    for name in ("intents", "multicon/books", "multicon/movies", "eval/x", ".irforge/y"):
        _bench(tmp_path / name)
    labels = [label for label, _ in bench_folders(tmp_path)]
    assert labels == ["intents", "multicon/books", "multicon/movies"]
    assert [label for label, _ in bench_folders(tmp_path / "intents")] == ["intents"]


def test_a_folder_without_queries_is_a_clear_error(tmp_path):
    with pytest.raises(IrforgeError, match=r"holds no queries\.jsonl"):
        bench_folders(tmp_path)
    with pytest.raises(IrforgeError, match="does not exist"):
        bench_folders(tmp_path / "missing")
