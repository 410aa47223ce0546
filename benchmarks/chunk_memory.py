"""Peak memory of extracting and chunking one large one-paragraph .txt file, as a multiple of
its size (issue 17: chunking must stay within a small multiple of the input). Run by hand::

    python benchmarks/chunk_memory.py --mb 5
    python benchmarks/chunk_memory.py --mb 50 --tokenizer minilm
    python benchmarks/chunk_memory.py --hostile     # `corpus build` over the hostile folder

Each size runs in a fresh process (peak RSS is per process); the report gives the file size,
the RSS before the work (interpreter + tokenizer), the peak, and (peak - before) / size.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_smoke import parse

SENTENCE = ("The river rose by 3 metres near the old bridge on Monday while crews sandbagged "
            "the road. ")


def measure(path: Path, tokenizer: str) -> dict[str, float]:
    """Extract and chunk ``path`` in this process; sizes in MB."""
    from irforge.corpus.chunk import ChunkSettings
    from irforge.corpus.chunk_stage import passages_of
    from irforge.corpus.extract import ExtractSettings, extract_txt
    from irforge.corpus.tokenizers import get_tokenizer

    tok = get_tokenizer(tokenizer)
    tok.count_many(["warm up the tokenizer"])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    row = extract_txt(path, ExtractSettings())
    passages = len(passages_of(row, tok, ChunkSettings())["passages"]) if row["status"] == "ok" \
        else 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = path.stat().st_size / 2**20
    return {"file_mb": round(size, 1), "rss_before_mb": round(before), "peak_mb": round(peak),
            "growth_per_input_byte": round((peak - before) / size, 1), "passages": passages,
            "seconds": round(time.perf_counter() - started, 1)}


HOSTILE_CHILD = """
import json, sys, time
from irforge.cli.app import main
started = time.perf_counter()
try:
    main(sys.argv[1:])
finally:
    status = open("/proc/self/status").read()
    peak = int(status.split("VmHWM:")[1].split()[0]) / 1024
    print(json.dumps({"peak_rss_mb": round(peak),
                      "seconds": round(time.perf_counter() - started, 1)}), file=sys.stderr)
"""


def hostile(tokenizer: str, huge_mb: int, bomb_mb: int) -> None:
    """``corpus build`` over the hostile folder of issue 27 in a fresh process: its peak RSS
    (VmHWM of that process) and what became of each file."""
    from irforge.testing.documents import write_hostile_folder

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "hostile"
        expected = write_hostile_folder(source, huge_mb, bomb_mb)
        bench = Path(folder) / "bench"
        done = subprocess.run([sys.executable, "-c", HOSTILE_CHILD, "corpus", "build",
                               str(bench), "--input", str(source), "--tokenizer", tokenizer,
                               "--skip-passage-dedup", "--workers", "1"],
                              capture_output=True, text=True)
        sizes = {path.name: round(path.stat().st_size / 2**20, 2) for path in source.iterdir()}
        print(f"input: {json.dumps(sizes)}")
        print(f"exit {done.returncode}; {done.stderr.strip().splitlines()[-1]}")
        log = bench / "corpus_work/extract/documents.jsonl"
        for row in map(json.loads, log.read_text().splitlines()):
            got = row["status"] if row["status"] == "ok" else row["reason"][:90]
            print(f"  {row['file']!r}: {got} (expected {expected.get(row['file'])})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, nargs="+", default=[5.0])
    parser.add_argument("--tokenizer", default="minilm")
    parser.add_argument("--hostile", action="store_true",
                        help="measure `corpus build` over the hostile folder instead")
    parser.add_argument("--huge-mb", type=int, default=200, help="with --hostile")
    parser.add_argument("--bomb-mb", type=int, default=300, help="with --hostile")
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)  # child process
    args = parse(parser, None, mb=[0.05], hostile=False)
    if args.hostile:
        hostile(args.tokenizer, args.huge_mb, args.bomb_mb)
        return
    if args.file is not None:
        print(json.dumps(measure(args.file, args.tokenizer)))
        return
    with tempfile.TemporaryDirectory() as folder:
        for size in args.mb:
            path = Path(folder) / f"one_paragraph_{size:g}mb.txt"
            path.write_text("Flood report\n\n" + SENTENCE * int(size * 2**20 / len(SENTENCE)),
                            encoding="utf-8")
            done = subprocess.run([sys.executable, __file__, "--file", str(path),
                                   "--tokenizer", args.tokenizer],
                                  capture_output=True, text=True, check=True)
            print(done.stdout.strip())


if __name__ == "__main__":
    main()
