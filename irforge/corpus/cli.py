"""``irforge corpus ...``: thin command wrappers over :mod:`irforge.corpus.pipeline`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from irforge.cli.output import JsonOption, emit
from irforge.scale.executor import cluster

Out = Annotated[Path, typer.Argument(help="Benchmark folder (corpus.jsonl and corpus_work/ "
                                          "are written here).")]
Fresh = Annotated[bool, typer.Option(help="Discard this stage's saved state (and later stages') "
                                          "and start it over.")]
Workers = Annotated[int | None, typer.Option(help="Worker processes (default: CPU count).")]
Urls = Annotated[Path | None, typer.Option(help="Text file of PDF URLs, one a line.")]
Queries = Annotated[Path | None, typer.Option(help="Text file of search queries, one a line.")]
Provider = Annotated[str, typer.Option(help="Search provider: google or package.module:Class.")]
Input = Annotated[Path | None, typer.Option(
    help="Folder of documents, searched recursively: .pdf .txt .md .rst .html .docx .pptx "
         ".xlsx .epub, corpus .jsonl/.parquet, HF dataset folders (default: the collected "
         "files).")]
Include = Annotated[list[str] | None, typer.Option(
    help="Read only files whose relative path or name matches this glob (repeatable; '*' "
         "spans folders).")]
Exclude = Annotated[list[str] | None, typer.Option(
    help="Skip files and folders whose relative path or name matches this glob (repeatable).")]
MaxDocChars = Annotated[int, typer.Option(
    help="Cap on the extracted text of one document; a larger one is skipped (too-large).")]
MaxPageContent = Annotated[float, typer.Option(
    help="A PDF page whose content streams unpack past this many MB is skipped (PDF bombs).")]
FollowSymlinks = Annotated[bool, typer.Option(
    help="Also read files that links in the input folder point to outside it (skipped by "
         "default, e.g. a link to /etc/passwd).")]
RetryMemory = Annotated[int, typer.Option(
    help="Memory cap (MB) of the lone retry of a file that was being read when an earlier "
         "run died; a file that fails again is skipped as 'crashed'.")]
MaxTokens = Annotated[int, typer.Option(help="Hard maximum tokens per passage.")]
MinTokens = Annotated[int, typer.Option(help="Passages under this are merged or dropped.")]
Tokenizer = Annotated[str, typer.Option(help="minilm, words, hf:PATH or tiktoken:NAME.")]
Embedder = Annotated[str, typer.Option(help="minilm or a sentence-transformers model folder.")]
AllowPrivate = Annotated[bool, typer.Option(
    help="Also fetch URLs on loopback, private and link-local addresses (an intranet); "
         "redirects still may not move to another private host or port.")]
Deadline = Annotated[float, typer.Option(
    help="Total seconds per URL, all attempts together (a trickling server is cut off).")]
Ray = Annotated[str | None, typer.Option(
    "--ray", envvar="IRFORGE_RAY_ADDRESS",
    help="Run the batch work on a Ray cluster: HOST:PORT of its head, ray://HOST:PORT, or "
         "'local' to start one here (needs irforge[ray]; see docs/scale.md).")]


def _echo(stage: str, summary: dict[str, Any], as_json: bool = False) -> None:
    """One stage's summary: ``[corpus:STAGE] {...}``, or with ``--json`` the bare object."""
    shown = {key: value for key, value in summary.items() if key != "settings"}
    emit({"stage": stage, **shown}, f"[corpus:{stage}] {json.dumps(shown, sort_keys=True)}",
         as_json)


def _lines(path: Path | None, reader: Any) -> list[str]:
    return reader(path) if path else []


def _config(**overrides: Any) -> Any:
    """A CorpusConfig with the given per-stage settings replaced."""
    from dataclasses import replace

    from irforge.corpus.pipeline import CorpusConfig

    config = CorpusConfig()
    for section, values in overrides.items():
        current = getattr(config, section)
        value = replace(current, **values) if isinstance(values, dict) else values
        config = replace(config, **{section: value})
    return config


def collect_command(out: Out, urls: Urls = None, queries: Queries = None,
                    provider: Provider = "google",
                    per_query: Annotated[int, typer.Option(help="Results per query.")] = 20,
                    download_workers: Annotated[int, typer.Option(help="Parallel downloads.")] = 4,
                    max_mb: Annotated[float, typer.Option(help="Size limit per file.")] = 50.0,
                    timeout: Annotated[float, typer.Option(help="Read timeout, seconds.")] = 30.0,
                    retries: Annotated[int, typer.Option(help="Retries per URL.")] = 2,
                    retry_failed: Annotated[bool, typer.Option(
                        help="Try again URLs that timed out or got 5xx/429 last time.")] = False,
                    allow_private: AllowPrivate = False, deadline: Deadline = 300.0,
                    fresh: Fresh = False,
                    as_json: JsonOption = False) -> None:
    """Search and/or read URLs, download PDFs, dedup by URL and content (resumable)."""
    from irforge.corpus.pipeline import run_collect
    from irforge.corpus.search import read_queries, read_url_list

    config = _config(download={"max_bytes": int(max_mb * 1024 * 1024),
                               "read_timeout_s": timeout, "retries": retries,
                               "allow_private": allow_private, "total_timeout_s": deadline},
                     search_provider=provider, results_per_query=per_query,
                     download_workers=download_workers)
    _echo("collect", run_collect(out, config, _lines(urls, read_url_list),
                                 _lines(queries, read_queries), retry_failed, fresh), as_json)


def _extract_settings(include: list[str] | None, exclude: list[str] | None,
                      max_doc_chars: int, max_page_content_mb: float,
                      retry_memory_mb: int, follow_symlinks: bool) -> dict[str, Any]:
    return {"include": tuple(include or ()), "exclude": tuple(exclude or ()),
            "max_chars": max_doc_chars, "max_page_content_mb": max_page_content_mb,
            "retry_memory_mb": retry_memory_mb, "follow_symlinks": follow_symlinks}


def extract_command(out: Out, input: Input = None, workers: Workers = None,
                    keep_tables: Annotated[bool, typer.Option(help="Keep table text.")] = False,
                    keep_headers: Annotated[bool, typer.Option(
                        help="Keep repeated headers/footers.")] = False,
                    include: Include = None, exclude: Exclude = None,
                    max_doc_chars: MaxDocChars = 5_000_000,
                    max_page_content_mb: MaxPageContent = 8.0,
                    retry_memory_mb: RetryMemory = 2048,
                    follow_symlinks: FollowSymlinks = False,
                    fresh: Fresh = False, ray: Ray = None,
                    as_json: JsonOption = False) -> None:
    """Extract the text of every document with provenance; skip unreadable files with a reason."""
    from irforge.corpus.pipeline import run_extract

    config = _config(extract={"remove_tables": not keep_tables,
                              "remove_headers": not keep_headers,
                              **_extract_settings(include, exclude, max_doc_chars,
                                                  max_page_content_mb, retry_memory_mb,
                                                  follow_symlinks)},
                     workers=workers)
    with cluster(ray):
        _echo("extract", run_extract(out, config, input, fresh), as_json)


def dedup_command(out: Out,
                  threshold: Annotated[float, typer.Option(help="Jaccard threshold.")] = 0.8,
                  num_perm: Annotated[int, typer.Option(help="MinHash permutations.")] = 128,
                  shingle_size: Annotated[int, typer.Option(help="Words per shingle.")] = 5,
                  seed: Annotated[int, typer.Option(help="MinHash seed.")] = 1,
                  workers: Workers = None, fresh: Fresh = False, ray: Ray = None,
                  as_json: JsonOption = False) -> None:
    """Remove near-duplicate documents with MinHash-LSH."""
    from irforge.corpus.pipeline import run_dedup

    config = _config(dedup={"threshold": threshold, "num_perm": num_perm,
                            "shingle_size": shingle_size, "seed": seed}, workers=workers)
    with cluster(ray):
        _echo("dedup", run_dedup(out, config, fresh), as_json)


def chunk_command(out: Out, max_tokens: MaxTokens = 256, min_tokens: MinTokens = 16,
                  tokenizer: Tokenizer = "minilm",
                  semantic: Annotated[bool, typer.Option(
                      help="Also break where neighbouring sentences' embeddings differ most.")]
                  = False,
                  percentile: Annotated[float, typer.Option(
                      help="Breakpoint distance percentile (with --semantic).")] = 95.0,
                  embedder: Embedder = "minilm", workers: Workers = None,
                  fresh: Fresh = False, ray: Ray = None,
                  as_json: JsonOption = False) -> None:
    """Cut documents into passages on sentence boundaries, never over --max-tokens."""
    from irforge.corpus.pipeline import run_chunk

    config = _config(chunk={"max_tokens": max_tokens, "min_tokens": min_tokens,
                            "tokenizer": tokenizer, "semantic": semantic,
                            "breakpoint_percentile": percentile, "embedder": embedder},
                     workers=workers)
    with cluster(ray):
        _echo("chunk", run_chunk(out, config, fresh), as_json)


def dedup_passages_command(out: Out,
                           threshold: Annotated[float, typer.Option(help="Cosine threshold.")]
                           = 0.9,
                           k: Annotated[int, typer.Option(help="Neighbours per passage.")] = 10,
                           exact: Annotated[bool, typer.Option(
                               help="Brute-force neighbours instead of ANN.")] = False,
                           embedder: Embedder = "minilm", fresh: Fresh = False,
                           ray: Ray = None,
                           as_json: JsonOption = False) -> None:
    """Remove near-duplicate passages by embedding similarity (usearch + union-find)."""
    from irforge.corpus.pipeline import run_dedup_passages

    config = _config(passage_dedup={"threshold": threshold, "k": k, "exact": exact,
                                    "embedder": embedder})
    with cluster(ray):
        _echo("dedup_passages", run_dedup_passages(out, config, fresh), as_json)


def write_command(out: Out,
                  as_json: JsonOption = False) -> None:
    """Write corpus.jsonl (BEIR, with provenance metadata) and corpus_stats.json."""
    from irforge.corpus.pipeline import run_write

    _echo("write", run_write(out), as_json)


def build_command(out: Out, urls: Urls = None, queries: Queries = None, input: Input = None,
                  provider: Provider = "google", max_tokens: MaxTokens = 256,
                  min_tokens: MinTokens = 16, tokenizer: Tokenizer = "minilm",
                  lsh_threshold: Annotated[float, typer.Option(help="Document Jaccard.")] = 0.8,
                  passage_threshold: Annotated[float, typer.Option(help="Passage cosine.")]
                  = 0.9,
                  embedder: Embedder = "minilm",
                  skip_passage_dedup: Annotated[bool, typer.Option(
                      help="Skip the embedding dedup (no torch needed).")] = False,
                  allow_private: AllowPrivate = False,
                  include: Include = None, exclude: Exclude = None,
                  max_doc_chars: MaxDocChars = 5_000_000,
                  max_page_content_mb: MaxPageContent = 8.0,
                  retry_memory_mb: RetryMemory = 2048,
                  follow_symlinks: FollowSymlinks = False,
                  workers: Workers = None, ray: Ray = None,
                  as_json: JsonOption = False) -> None:
    """Run every stage: collect, extract, dedup, chunk, dedup-passages, write. Re-run resumes."""
    from irforge.corpus.pipeline import build
    from irforge.corpus.search import read_queries, read_url_list

    config = _config(chunk={"max_tokens": max_tokens, "min_tokens": min_tokens,
                            "tokenizer": tokenizer},
                     dedup={"threshold": lsh_threshold},
                     extract=_extract_settings(include, exclude, max_doc_chars,
                                               max_page_content_mb, retry_memory_mb,
                                               follow_symlinks),
                     passage_dedup={"threshold": passage_threshold, "embedder": embedder},
                     search_provider=provider, workers=workers,
                     skip_passage_dedup=skip_passage_dedup,
                     download={"allow_private": allow_private})
    with cluster(ray):
        summaries = build(out, config, _lines(urls, read_url_list),
                          _lines(queries, read_queries), input)
    if as_json:
        emit({"stages": {stage: {k: v for k, v in summary.items() if k != "settings"}
                         for stage, summary in summaries.items()}}, "", as_json=True)
        return
    for stage, summary in summaries.items():
        _echo(stage, summary)


def pool_command(bench: Annotated[Path, typer.Argument(
                     help="Benchmark folder with corpus.jsonl and queries.jsonl.")],
                 retriever: Annotated[list[str] | None, typer.Option(
                     help="Retriever spec, repeatable (default: bm25, dense, dense-hnsw).")]
                 = None,
                 k: Annotated[int, typer.Option(help="Top-k taken from each retriever.")] = 10,
                 out: Annotated[Path | None, typer.Option(
                     help="Pool file (default: BENCH/pool/candidates.jsonl).")] = None,
                 ray: Ray = None,
                 as_json: JsonOption = False) -> None:
    """Pool the top-k of several retrievers (exact and ANN) per query for labeling."""
    from irforge.core.bench import Benchmark
    from irforge.core.errors import EmptyResultError
    from irforge.corpus.pool import DEFAULT_RETRIEVERS, pool_candidates, write_pool

    folder = Benchmark(bench)
    specs = retriever or list(DEFAULT_RETRIEVERS)
    queries, docs = list(folder.queries()), list(folder.corpus())
    if not queries or not docs:  # an empty pool is never a success
        empty = folder.queries_path if not queries else folder.corpus_path
        raise EmptyResultError(f"{empty} holds no rows: nothing to pool (build the "
                               "queries and the corpus first)")
    with cluster(ray):
        pool = pool_candidates(queries, docs, specs, k,
                               cache_dir=folder.root / ".irforge" / "embeddings")
    target = out or folder.root / "pool" / "candidates.jsonl"
    write_pool(pool, target)
    stats = {**pool.stats(), "file": str(target)}
    folder.record_step("corpus.pool", stats)
    _echo("pool", stats, as_json)
