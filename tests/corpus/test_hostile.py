"""Issue 27 items 4 and 7 for the corpus: a hostile folder is built within a memory bound, a
file that killed a run is retried alone and recorded, and empty input is never a success.
Every case runs ``python -m irforge`` as a real process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from irforge.testing.documents import write_hostile_folder, write_pdf_bomb

ROOT = Path(__file__).resolve().parents[2]
BUILD = ["--tokenizer", "words", "--skip-passage-dedup", "--workers", "1"]
ADDRESS_SPACE_MB = 1024  # the documented bound (docs/corpus.md, "Memory bounds")
PEAK_RSS_MB = 512


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
            "OPENBLAS_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


def _irforge(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "irforge", *args], capture_output=True,
                          text=True, env=_env(), timeout=timeout)


def _log(bench: Path) -> dict[str, dict]:
    path = bench / "corpus_work/extract/documents.jsonl"
    return {row["file"]: row for row in map(json.loads, path.read_text().splitlines())}


def test_hostile_folder_builds_within_the_memory_bound(tmp_path: Path) -> None:
    source = tmp_path / "hostile"
    expected = write_hostile_folder(source)
    bench = tmp_path / "bench"
    limit = ADDRESS_SPACE_MB * 2**20
    script = ("import json, resource, sys\n"
              f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
              "from irforge.cli.app import main\n"
              "try:\n    main(sys.argv[1:])\nfinally:\n"
              "    status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
              "    peak = int(status.split()[0]) / 1024  # this process only (ru_maxrss\n"
              "    # can carry the parent's peak across fork and exec)\n"
              "    print(json.dumps({'peak_rss_mb': round(peak)}), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script, "corpus", "build", str(bench),
                           "--input", str(source), *BUILD], capture_output=True, text=True,
                          env=_env(), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    peak = json.loads(done.stderr.strip().splitlines()[-1])["peak_rss_mb"]
    assert peak < PEAK_RSS_MB, peak
    rows = _log(bench)
    for name, outcome in expected.items():
        row = rows[name]
        got = "ok" if row["status"] == "ok" else row["reason"].split(":")[0]
        assert got == outcome, (name, row.get("reason"))
    assert (source / "bomb.pdf").stat().st_size < 1_000_000  # small file, huge stream
    assert "--max-page-content-mb" in rows["bomb.pdf"]["reason"]
    assert "--max-doc-chars" in rows["huge one line.txt"]["reason"]
    assert rows["notes latin1.txt"]["encoding"] == "cp1252"  # detected per file
    assert not any(ch.isspace() for ch in rows["two\nlines.md"]["doc_id"])
    assert "too-large" in done.stdout and "binary" in done.stdout  # top reasons shown


def test_a_file_that_killed_a_run_is_retried_alone_then_recorded(tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    write_pdf_bomb(source / "a-bomb.pdf", 20)
    (source / "b.txt").write_text("Shelters\n\nThe school hall opens when the river "
                                  "passes four metres.", encoding="utf-8")
    bench = tmp_path / "bench"
    args = ["corpus", "extract", str(bench), "--input", str(source), "--workers", "1",
            "--max-page-content-mb", "100000"]  # guard off: the bomb takes the run down
    first = subprocess.Popen([sys.executable, "-m", "irforge", *args], env=_env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    attempts = bench / "corpus_work/extract/attempts.jsonl"
    deadline = time.monotonic() + 60
    while not (attempts.exists() and "a-bomb.pdf" in attempts.read_text()):
        assert first.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    first.send_signal(signal.SIGKILL)  # what the kernel's OOM killer does
    first.wait()
    assert not (bench / "corpus_work/extract/documents.jsonl").exists() or \
        "a-bomb.pdf" not in _log(bench)
    # the retry gets 64 MB: too little to even start Python, so it dies too
    again = _irforge(*args, "--retry-memory-mb", "64")
    assert again.returncode == 0, again.stdout + again.stderr
    rows = _log(bench)
    assert rows["a-bomb.pdf"]["reason"].startswith("crashed: extracting this file ended")
    assert rows["b.txt"]["status"] == "ok"
    third = _irforge(*args)
    assert third.returncode == 0 and '"newly_extracted": 0' in third.stdout
    assert "crashed" in third.stdout


def test_empty_folder_and_junk_only_exit_3_with_the_top_reasons(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = _irforge("corpus", "build", str(tmp_path / "b1"), "--input", str(empty), *BUILD)
    assert done.returncode == 3, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert "no document could be read" in said and "the folder is empty" in said
    assert "Traceback" not in done.stderr
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "a.txt").write_bytes(b"\x00\x01\x02" * 400)
    (junk / "b.pdf").write_bytes(b"<html><body>404</body></html>")
    (junk / "c.bin").write_bytes(b"\x00" * 10)
    bench = tmp_path / "b2"
    done = _irforge("corpus", "build", str(bench), "--input", str(junk), *BUILD)
    assert done.returncode == 3, done.stdout + done.stderr
    text = " ".join(done.stderr.split())
    assert "binary: a NUL byte at byte 0" in text and "(e.g. a.txt)" in text
    assert "not a PDF" in text and "unsupported: .bin" in text
    manifest = json.loads((bench / "manifest.json").read_text()) \
        if (bench / "manifest.json").exists() else {}
    assert "corpus.extract" not in json.dumps(manifest)  # not marked done
    assert not (bench / "corpus.jsonl").exists()


def test_collect_where_every_url_is_refused_exits_non_zero(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("http://127.0.0.1:9/a.pdf\nhttp://10.0.0.7/b.pdf\n", encoding="utf-8")
    done = _irforge("corpus", "collect", str(tmp_path / "bench"), "--urls", str(urls),
                    "--retries", "0")
    assert done.returncode == 3, done.stdout + done.stderr
    text = " ".join(done.stderr.split())
    assert "none of 2 URLs gave a PDF" in text and "2 x refused" in text
    assert "--allow-private" in text



def test_documents_that_give_no_passage_exit_3_and_write_no_corpus(tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    (source / "short.md").write_text("# Note\n\nThe shelter is open today.\n", encoding="utf-8")
    bench = tmp_path / "bench"
    done = _irforge("corpus", "build", str(bench), "--input", str(source), "--min-tokens",
                    "50", *BUILD)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "no passage to write" in " ".join(done.stderr.split())
    assert not (bench / "corpus.jsonl").exists()
