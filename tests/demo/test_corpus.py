from __future__ import annotations

from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.demo import STAGES, DemoContext
from irforge.demo.corpus import stage_corpus_pipeline


def test_demo_stage_builds_the_corpus_from_sample_pdfs_and_text(tmp_path: Path, embedder) -> None:
    assert "corpus-pipeline" in [name for name, _ in STAGES]
    summary = stage_corpus_pipeline(DemoContext(out=tmp_path, model=None))
    assert "1 near-duplicate removed" in summary
    docs = list(Benchmark(tmp_path).corpus())
    files = {doc.metadata["file"] for doc in docs}
    assert any(name.endswith(".pdf") for name in files)
    assert not any(name.endswith("_copy.pdf") for name in files)  # the planted duplicate
    pdf_text = " ".join(doc.text for doc in docs if doc.metadata["file"].endswith(".pdf"))
    assert "irforge sample corpus" not in pdf_text  # running header removed
    assert "Page 1" not in pdf_text
    assert all(doc.metadata["tokens"] <= 256 for doc in docs)
