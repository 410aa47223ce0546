from __future__ import annotations

import json
import shutil
from pathlib import Path

import pdfs
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.corpus.chunk import normalized
from irforge.corpus.state import CorpusWork, StaleStageError
from irforge.corpus.tokenizers import get_tokenizer

BODY = ("Storm surge maps for zone {zone} show which streets flood first. " +
        "Residents in low streets should move cars to higher ground before the tide peaks, "
        "check on neighbours who cannot climb stairs, and keep a radio tuned to the local "
        "station for the all-clear. ") * 3


def _build(*args: str):
    return CliRunner().invoke(build_app(), ["corpus", "build", *args])


def test_build_from_urls_writes_a_beir_corpus_with_provenance(server, tmp_path: Path,
                                                              embedder) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    pdfs.two_column_pdf(folder / "columns.pdf")
    pdfs.fpdf_report(folder / "report.pdf", [BODY.format(zone=z) for z in ("north", "south")])
    pdfs.fpdf_report(folder / "report2.pdf", [BODY.format(zone=z) for z in ("north", "south")]
                     + ["One more closing line about the barrier."])
    pdfs.encrypted_pdf(folder / "locked.pdf")
    for name in ("columns.pdf", "report.pdf", "report2.pdf", "locked.pdf"):
        server.raw(f"/{name}", 200, "application/pdf", (folder / name).read_bytes())
    urls = tmp_path / "urls.txt"
    urls.write_text("\n".join(server.url(f"/{n}") for n in
                              ("columns.pdf", "report.pdf", "report2.pdf", "locked.pdf",
                               "missing.pdf")))
    out = tmp_path / "bench"

    result = _build(str(out), "--urls", str(urls), "--max-tokens", "48", "--min-tokens", "4",
                    "--workers", "1", "--allow-private")
    assert result.exit_code == 0, result.output

    bench = Benchmark(out)
    docs = list(bench.corpus())
    assert docs, "no passages written"
    tokenizer = get_tokenizer("minilm")
    assert max(tokenizer.count_many([doc.text for doc in docs])) <= 48
    work = CorpusWork.of(out)
    extracted = {row["file"]: row for row in work.log("extract", "documents.jsonl").rows()}
    assert extracted[next(f for f, r in extracted.items() if r["status"] == "skipped")][
        "reason"].startswith("encrypted")
    for doc in docs:
        meta = doc.metadata
        assert meta["source_url"].startswith("http://127.0.0.1:")
        source = extracted[meta["file"]]
        assert normalized(source["text"][meta["char_start"]:meta["char_end"]]) == doc.text
        assert 1 <= meta["page"] <= meta["page_end"] <= source["page_count"]
    steps = bench.manifest()["steps"]
    for stage in ("collect", "extract", "dedup", "chunk", "dedup_passages", "write"):
        assert f"corpus.{stage}" in steps
    assert steps["corpus.dedup"]["duplicates"] == 1  # report2 nearly repeats report
    assert steps["corpus.collect"]["outcomes"]["http_error"] == 1
    stats = json.loads((out / "corpus_stats.json").read_text())
    assert stats["passages"] == len(docs) and stats["tokens"]["max"] <= 48
    before = bench.corpus_path.read_text()

    again = _build(str(out), "--urls", str(urls), "--max-tokens", "48", "--min-tokens", "4",
                   "--workers", "1")
    assert again.exit_code == 0, again.output
    assert '"newly_attempted": 0' in again.output and '"newly_extracted": 0' in again.output
    assert '"newly_chunked": 0' in again.output
    assert bench.corpus_path.read_text() == before
    assert sum(server.requests.values()) == 5  # nothing downloaded twice

    changed = _build(str(out), "--urls", str(urls), "--max-tokens", "64", "--workers", "1")
    assert isinstance(changed.exception, StaleStageError)
    assert "--fresh" in str(changed.exception)


def test_stage_verbs_run_one_by_one_on_a_text_folder(tmp_path: Path) -> None:
    source = tmp_path / "txt"
    source.mkdir()
    for name in ("a", "b"):
        (source / f"{name}.txt").write_text(
            f"Title {name}\n\n" + f"Document {name} explains the plan for zone {name}. " * 30,
            encoding="utf-8")
    shutil.copy(source / "a.txt", source / "c.txt")  # an exact duplicate document
    out = str(tmp_path / "bench")
    runner, app = CliRunner(), build_app()
    for args in (["extract", out, "--input", str(source), "--workers", "1"],
                 ["dedup", out, "--workers", "1"],
                 ["chunk", out, "--tokenizer", "words", "--max-tokens", "40", "--workers", "1"],
                 ["write", out]):
        result = runner.invoke(app, ["corpus", *args])
        assert result.exit_code == 0, (args, result.output)
    docs = list(Benchmark(tmp_path / "bench").corpus())
    assert {doc.metadata["doc_id"] for doc in docs} == {"a.txt", "b.txt"}
    assert {doc.title for doc in docs} == {"Title a", "Title b"}
    assert all(len(doc.text.split()) <= 40 for doc in docs)
