"""Demo stages run with the embedded model, or read from the demo CI has just built.

``.ci/run`` runs ``make demo`` first and names its folder in IRFORGE_TEST_DEMO_DIR; the
slow demo tests then assert on that folder instead of building the same stage a second
time, also when the stage kept nothing there (the same model on the same inputs keeps
nothing again; the stage's manifest entry and failures.jsonl say why). Unset (a user's
``make test``), each test builds its stage in its own folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

DEMO_DIR_ENV = "IRFORGE_TEST_DEMO_DIR"

#: (folder of the stage's benchmark under the demo folder, summary line) for a stage name
StageOutput = Callable[[str, str], tuple[Path, str]]


@pytest.fixture
def demo_stage_output(tmp_path: Path) -> StageOutput:
    """The benchmark folder a demo stage wrote: the CI demo's when IRFORGE_TEST_DEMO_DIR
    names it and the stage recorded its run there (kept queries or not), else the stage
    built now in ``tmp_path`` (which raises EmptyResultError as the demo does when it keeps
    nothing, after writing its record)."""
    pytest.importorskip("llama_cpp")
    from irforge.core.bench import Benchmark
    from irforge.demo import DemoContext, stage_function

    def output(stage: str, folder: str) -> tuple[Path, str]:
        built = os.environ.get(DEMO_DIR_ENV)
        if built:
            root = Path(built)
            if not (root / "manifest.json").is_file():
                pytest.fail(f"{DEMO_DIR_ENV}={built} is no demo folder (no manifest.json): "
                            "run make demo into it first, or unset it")
            bench = Benchmark(root / folder)
            if bench.manifest_path.is_file() and stage in bench.manifest().get("steps", {}):
                return bench.root, f"{stage} stage of the demo at {root}"
        summary = stage_function(stage)(DemoContext(out=tmp_path, model=None))
        return tmp_path / folder, summary

    return output
