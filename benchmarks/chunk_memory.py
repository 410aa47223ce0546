"""Peak memory of extracting and chunking one large one-paragraph .txt file, as a multiple of
its size (issue 17: chunking must stay within a small multiple of the input). Run by hand::

    python benchmarks/chunk_memory.py --mb 5
    python benchmarks/chunk_memory.py --mb 50 --tokenizer minilm

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, nargs="+", default=[5.0])
    parser.add_argument("--tokenizer", default="minilm")
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)  # child process
    args = parser.parse_args()
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
