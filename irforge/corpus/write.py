"""Stage 6, write: the surviving passages as a BEIR ``corpus.jsonl`` with provenance, plus stats.

Each row's ``metadata`` names the source URL (when collected from the web), the file (its path
relative to the input folder) and format, the page/slide/sheet span, the section heading and
the character offsets of the passage in its document's extracted text, and the fields of the
document's front matter (docs/corpus.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.core.jsonl import write_json
from irforge.core.records import Doc
from irforge.corpus.chunk_stage import passages
from irforge.corpus.passage_dedup import removed_passages
from irforge.corpus.state import CorpusWork

PROVENANCE = ("doc_id", "file", "format", "source_url", "page", "page_end", "page_unit",
              "section", "char_start", "char_end", "page_char_start", "tokens", "front_matter")


def _docs(work: CorpusWork, removed: set[str], tokens: list[int], sources: set[str]
          ) -> Iterator[Doc]:
    for passage in passages(work):
        if passage["_id"] in removed:
            continue
        tokens.append(passage["tokens"])
        sources.add(passage["doc_id"])
        metadata = {key: passage[key] for key in PROVENANCE if passage.get(key) is not None}
        yield Doc(doc_id=passage["_id"], text=passage["text"], title=passage["title"],
                  metadata=metadata)


def write_corpus(work: CorpusWork, bench: Benchmark) -> dict[str, Any]:
    """Write ``corpus.jsonl`` (atomically) and ``corpus_stats.json``; returns the stats."""
    work.start("write", {})
    removed = set(removed_passages(work))
    if not any(passage["_id"] not in removed for passage in passages(work)):
        raise EmptyResultError(
            f"{work.root}: no passage to write: the chunk stage kept none (every document "
            "was shorter than --min-tokens, or was removed as a duplicate); see "
            f"{work.stage_dir('chunk') / 'done.json'} and lower --min-tokens, or add documents")
    tokens: list[int] = []
    sources: set[str] = set()
    count = bench.write_corpus(_docs(work, removed, tokens, sources))
    lengths = np.array(tokens or [0])
    stats = {
        "passages": count, "documents": len(sources),
        "tokens": {"min": int(lengths.min()), "mean": round(float(lengths.mean()), 1),
                   "p50": int(np.percentile(lengths, 50)), "max": int(lengths.max())},
        "removed_near_duplicate_passages": len(removed),
        "stages": {stage: _done(work, stage) for stage in
                   ("collect", "extract", "dedup", "chunk", "dedup_passages")},
    }
    write_json(bench.root / "corpus_stats.json", stats)
    work.mark_done("write", stats)
    return stats


def _done(work: CorpusWork, stage: str) -> dict[str, Any] | None:
    import json

    path = work.stage_dir(stage) / "done.json"
    if not path.exists():
        return None
    summary = json.loads(path.read_text(encoding="utf-8"))
    return {key: value for key, value in summary.items() if key != "settings"}
