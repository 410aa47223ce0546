"""``irforge annotate`` on a run folder: each method folder is pushed and pulled on its own
(its own Label Studio project); one ``--project`` cannot serve several folders."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from irforge.annotation import cli as annotate_cli
from tests.test_collection import METHODS, exit_of, make_run_folder


@pytest.fixture
def pushed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, str | None]]:
    """Push with the server replaced: records which folder each push got, and its title."""
    from irforge.annotation import push as push_module
    from irforge.annotation.push import PushResult

    calls: list[tuple[Path, str | None]] = []

    def fake_push(bench, labeling, connection, n, strategy, seed, by, threshold, project,
                  title, annotators=1, show_predictions=False, gold=True, gold_share=0.15):
        calls.append((bench.root, title))
        return PushResult(len(calls), True, 10, n, n, 0)

    monkeypatch.setattr(push_module, "push", fake_push)
    monkeypatch.setattr(annotate_cli, "_connect", lambda url, settings: SimpleNamespace(
        settings=SimpleNamespace(base_url="http://127.0.0.1:9")))
    return calls


def test_push_on_a_run_folder_pushes_every_method_folder(
        tmp_path: Path, pushed: list, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_run_folder(tmp_path / "run")
    code, output = exit_of(capsys, "annotate", "push", root, "--n", "3", "--title", "Round 1")
    assert code == 0, output
    assert pushed == [(root / m, f"Round 1 ({m})") for m in METHODS]
    assert all(f"{m}: project" in output for m in METHODS)


def test_one_project_id_for_a_whole_run_folder_is_refused(
        tmp_path: Path, pushed: list, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_run_folder(tmp_path / "run")
    code, output = exit_of(capsys, "annotate", "push", root, "--project", "7")
    assert code == 2 and "--project names one Label Studio project" in " ".join(output.split())
    assert pushed == []
    code, output = exit_of(capsys, "annotate", "push", root / "logical", "--project", "7")
    assert code == 0, output
    assert pushed == [(root / "logical", None)]


def test_status_on_a_run_folder_names_the_folder_without_a_project(
        tmp_path: Path, pushed: list, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_run_folder(tmp_path / "run")
    code, output = exit_of(capsys, "annotate", "status", root)
    assert code == 2
    for method in METHODS:  # each folder reports its own missing project
        assert f"{method}: no Label Studio project recorded" in " ".join(output.split())
