"""What a built corpus feeds the generators (issue 33): passages without a title, passages
holding front matter, template tags, navigation panels or Project Gutenberg boilerplate, the
stub pages skipped (with reasons), and the source selector's chosen-vs-rejected table.

The debris is counted with patterns of its own (not the extractor's rules), so a rule that
misses shows up here. Run on a built benchmark folder, or build one first::

    python benchmarks/corpus_quality.py OUT --build ../shared/data/real/debian-guide
    python benchmarks/corpus_quality.py OUT --build benchmarks/data/toolshed-site
    python benchmarks/corpus_quality.py OUT            # OUT already built
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from bench_smoke import parse

from irforge.core.bench import Benchmark
from irforge.corpus.sources import select_documents, select_passages

DEBRIS = {
    "front_matter": re.compile(
        r"(?:^|\s)(?:layout|permalink|redirect(?:_to|_from)?|published|title)\s*[:=]\s*\S.*"
        r"(?:layout|permalink|redirect(?:_to|_from)?|published|date|tags)\s*[:=]\s*\S"),
    "template_tags": re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}|\{\{[<%]"),
    "navigation_panel": re.compile(r"\b(?:Next|Previous|Up|Prev)\s*:.{0,80}?"
                                   r"\b(?:Next|Previous|Up|Prev|Contents|Index)\s*:"),
    "gutenberg_boilerplate": re.compile(r"Project Gutenberg|gutenberg\.org|Gutenberg-tm|"
                                        r"(?:START|END) OF TH(?:E|IS) PROJECT", re.IGNORECASE),
    "page_markers": re.compile(r"\[(?:Pg|Page|p\.)\s*\d+\]", re.IGNORECASE),
    "glued_note_marks": re.compile(r"[^\W\d_]{2,}\d+\.\d+(?=\s|$)"),  # "loader2.1 A boot"
}


def measure(out: Path, sources: int, seed: int) -> dict:
    """The counts of one built benchmark folder."""
    docs = list(Benchmark(out).corpus())
    debris = {name: [d.doc_id for d in docs if pattern.search(d.text)]
              for name, pattern in DEBRIS.items()}
    log = out / "corpus_work" / "extract" / "documents.jsonl"
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    stubs = [(row["file"], row["reason"]) for row in rows
             if row["status"] == "skipped" and row["reason"].startswith("stub:")]
    selector = {}
    for need in ("informative", "logical"):
        selection = select_passages(docs, sources, need, seed)
        selector[need] = {"chosen": len(selection.chosen), "rejected": len(selection.rejected),
                          "rejected_by_reason": selection.reasons(),
                          "chosen_examples": [[c.source_id, c.section, c.score]
                                              for c in selection.chosen[:5]]}
    documents = select_documents(docs, sources, min_attributes=5, seed=seed)
    selector["multicon_documents"] = {
        "chosen": len(documents.chosen), "rejected": len(documents.rejected),
        "rejected_by_reason": documents.reasons(),
        "chosen_examples": [[c.source_id, c.section, c.score] for c in documents.chosen[:5]]}
    return {"passages": len(docs), "documents": len({d.metadata.get("doc_id") for d in docs}),
            "empty_titles": sum(not d.title.strip() for d in docs),
            "debris": {name: len(ids) for name, ids in debris.items()},
            "debris_examples": {name: ids[:3] for name, ids in debris.items() if ids},
            "stubs_skipped": len(stubs),
            "stub_reasons": Counter(reason.split("(")[0].strip() for _f, reason in stubs),
            "stub_examples": stubs[:8], "removed": _removed(rows), "selector": selector}


def _removed(rows: list[dict]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for row in rows:
        total.update(row.get("removed") or {})
    return dict(total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, nargs="?",
                        help="a benchmark folder (built, or to build)")
    parser.add_argument("--build", type=Path, help="build OUT from this folder first")
    parser.add_argument("--sources", type=int, default=20, help="sources the selector picks")
    parser.add_argument("--seed", type=int, default=0)
    # smoke: the shipped static-site sample, built into the working folder, 3 sources
    args = parse(parser, out=Path("corpus-quality-smoke"), sources=3,
                 build=Path(__file__).resolve().parent / "data" / "toolshed-site")
    if args.out is None:
        parser.error("give OUT, a benchmark folder (or --smoke)")
    if args.build:
        command = [sys.executable, "-m", "irforge", "corpus", "build", str(args.out),
                   "--input", str(args.build), "--skip-passage-dedup"]
        built = subprocess.run(command, check=True, capture_output=True, text=True)
        print(built.stdout, built.stderr, file=sys.stderr)
    print(json.dumps(measure(args.out, args.sources, args.seed), indent=2, default=dict))


if __name__ == "__main__":
    main()
