"""The whole corpus pipeline in one call: collect -> extract -> dedup -> chunk -> dedup passages
-> write. Every stage resumes from its own log, so ``build`` can simply be run again after a
crash or a kill; finished work is never redone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.errors import IrforgeError
from irforge.corpus.chunk import ChunkSettings
from irforge.corpus.dedup import DedupSettings
from irforge.corpus.download import DownloadSettings
from irforge.corpus.extract import ExtractSettings
from irforge.corpus.passage_dedup import PassageDedupSettings
from irforge.corpus.state import CorpusWork


@dataclass(frozen=True)
class CorpusConfig:
    """Settings of every stage; the defaults follow DisastIR where the paper gives a value."""

    download: DownloadSettings = field(default_factory=DownloadSettings)
    extract: ExtractSettings = field(default_factory=ExtractSettings)
    dedup: DedupSettings = field(default_factory=DedupSettings)
    chunk: ChunkSettings = field(default_factory=ChunkSettings)
    passage_dedup: PassageDedupSettings = field(default_factory=PassageDedupSettings)
    search_provider: str = "google"
    results_per_query: int = 20
    workers: int | None = None
    download_workers: int = 4
    skip_passage_dedup: bool = False


def run_collect(bench_dir: Path, config: CorpusConfig, urls: Sequence[str] = (),
                queries: Sequence[str] = (), retry_failed: bool = False,
                fresh: bool = False) -> dict[str, Any]:
    """Stage 1 on a benchmark folder (search provider loaded only when queries are given); a
    collect that kept no file at all is an ``EmptyResultError`` with the top reasons."""
    from irforge.corpus.collect import collect, require_files
    from irforge.corpus.search import get_provider

    provider = get_provider(config.search_provider) if queries else None
    work = CorpusWork.of(bench_dir)
    return require_files(work, collect(work, urls, queries, provider, config.results_per_query,
                                       config.download, config.download_workers, retry_failed,
                                       fresh))


def run_extract(bench_dir: Path, config: CorpusConfig, input_dir: Path | None = None,
                fresh: bool = False) -> dict[str, Any]:
    from irforge.corpus.extract import extract

    return extract(CorpusWork.of(bench_dir), input_dir, config.extract, config.workers, fresh)


def run_dedup(bench_dir: Path, config: CorpusConfig, fresh: bool = False) -> dict[str, Any]:
    from irforge.corpus.dedup import dedup_documents

    return dedup_documents(CorpusWork.of(bench_dir), config.dedup, config.workers, fresh)


def run_chunk(bench_dir: Path, config: CorpusConfig, fresh: bool = False) -> dict[str, Any]:
    from irforge.corpus.chunk_stage import chunk_documents

    return chunk_documents(CorpusWork.of(bench_dir), config.chunk, config.workers, fresh)


def run_dedup_passages(bench_dir: Path, config: CorpusConfig, fresh: bool = False
                       ) -> dict[str, Any]:
    from irforge.corpus.passage_dedup import dedup_passages

    return dedup_passages(CorpusWork.of(bench_dir), config.passage_dedup, fresh=fresh)


def run_write(bench_dir: Path) -> dict[str, Any]:
    from irforge.corpus.write import write_corpus

    work = CorpusWork.of(bench_dir)
    return write_corpus(work, work.bench)


def build(bench_dir: Path, config: CorpusConfig | None = None, urls: Sequence[str] = (),
          queries: Sequence[str] = (), input_dir: Path | None = None) -> dict[str, Any]:
    """Run every stage in order; returns each stage's summary. Re-run to resume."""
    config = config or CorpusConfig()
    if not (urls or queries or input_dir):
        raise IrforgeError("nothing to build from: give URLs (--urls FILE), search queries "
                           "(--queries FILE) or a folder of documents (--input DIR)")
    summaries: dict[str, Any] = {}
    if urls or queries:
        summaries["collect"] = run_collect(bench_dir, config, urls, queries)
    summaries["extract"] = run_extract(bench_dir, config, input_dir)
    summaries["dedup"] = run_dedup(bench_dir, config)
    summaries["chunk"] = run_chunk(bench_dir, config)
    if not config.skip_passage_dedup:
        summaries["dedup_passages"] = run_dedup_passages(bench_dir, config)
    summaries["write"] = run_write(bench_dir)
    return summaries
