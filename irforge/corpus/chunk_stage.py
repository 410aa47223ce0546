"""Stage 4 as a resumable step: kept documents -> ``chunk/chunks.jsonl`` (one row per document).

Each row holds all passages of one document with their provenance, written at once, so a
killed run never leaves half a document behind and a re-run skips finished documents.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from functools import partial
from typing import Any

from irforge.corpus.chunk import ChunkSettings, body_text, chunk_text, page_of
from irforge.corpus.dedup import kept_documents
from irforge.corpus.extract import documents
from irforge.corpus.formats.structure import PARAGRAPH_BREAK, section_at
from irforge.corpus.state import CorpusWork
from irforge.corpus.tokenizers import Tokenizer, get_tokenizer
from irforge.scale.executor import BatchJob, Executor, LocalExecutor, executor_for


def passages_of(doc: dict[str, Any], tokenizer: Tokenizer, settings: ChunkSettings,
                embed: Any = None) -> dict[str, Any]:
    """The chunk-log row of one extracted document: its passages with provenance."""
    text = doc["text"]
    sections = doc.get("sections") or []
    headings = heading_spans(text, sections)
    chunks, dropped = chunk_text(text, tokenizer, settings, embed, headings)
    bodies = [body_text(text, chunk.start, chunk.end, headings) for chunk in chunks]
    recount = [i for i, chunk in enumerate(chunks)
               if any(chunk.start <= start < chunk.end for start, _end in headings)]
    counts = dict(zip(recount, tokenizer.count_many([bodies[i] for i in recount]),
                      strict=True)) if recount else {}
    paged = doc.get("page_unit", "page") is not None  # Markdown, HTML, ... have no pages
    passages = []
    for number, chunk in enumerate(chunks):
        page, page_offset = page_of(doc["pages"], chunk.start)
        page_end, _ = page_of(doc["pages"], max(chunk.start, chunk.end - 1))
        if not paged:
            page = page_end = page_offset = None
        passages.append({
            "_id": _passage_id(doc, number, len(chunks)),
            "text": bodies[number],
            "tokens": counts.get(number, chunk.tokens),
            "char_start": chunk.start, "char_end": chunk.end,
            "page": page, "page_end": page_end, "page_char_start": page_offset,
            "section": section_at(sections, chunk.start),
        })
    return {"doc_id": doc["doc_id"], "title": doc.get("title", ""), "file": doc["file"],
            "source_url": doc.get("source_url"), "format": doc.get("format", "pdf"),
            "page_unit": doc.get("page_unit", "page"), "passages": passages,
            "dropped_short": dropped, **({"front_matter": doc["metadata"]}
                                         if doc.get("metadata") else {})}


def heading_spans(text: str, sections: list[list[Any]]) -> list[tuple[int, int]]:
    """The character span of each section's heading: from the section start to the end of
    its paragraph (a heading is one paragraph of the extracted text)."""
    spans = []
    for _label, start, end in sections:
        stop = text.find(PARAGRAPH_BREAK, start, end)
        spans.append((start, end if stop < 0 else stop))
    return sorted(spans)


def _passage_id(doc: dict[str, Any], number: int, count: int) -> str:
    """``DOC_n``; a row of an existing corpus that stays one passage keeps its own id."""
    if doc.get("keep_id") and count == 1:
        return str(doc["doc_id"])
    return f"{doc['doc_id']}_{number}"


class Chunker:
    """The batch function of the chunk stage: extracted documents -> chunk-log rows (the
    tokenizer, and the embedder of semantic chunking, loaded once per worker)."""

    def __init__(self, settings: ChunkSettings) -> None:
        self.settings = settings
        self.tokenizer = get_tokenizer(settings.tokenizer)
        self.embed = None
        if settings.semantic:
            from irforge.corpus.embed import Embedder

            self.embed = Embedder(settings.embedder)

    def __call__(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [passages_of(doc, self.tokenizer, self.settings, self.embed) for doc in docs]


def _rows(docs: Iterator[dict[str, Any]], settings: ChunkSettings, executor: Executor
          ) -> Iterator[dict[str, Any]]:
    if settings.semantic and not executor.distributed:
        executor = LocalExecutor(1)  # one embedding model in this process, not one per worker
    job = BatchJob(partial(Chunker, settings), batch_size=4, uses_gpu=False,
                   name="chunk")
    return executor.map(job, docs)


def chunk_documents(work: CorpusWork, settings: ChunkSettings | None = None,
                    workers: int | None = None, fresh: bool = False,
                    executor: Executor | None = None) -> dict[str, Any]:
    """Chunk every kept document not yet chunked (by ``executor``, default the active one or
    a pool of ``workers``); returns counts for the manifest."""
    settings = settings or ChunkSettings()
    get_tokenizer(settings.tokenizer)  # fail early, before any worker starts, on a bad spec
    work.start("chunk", asdict(settings), fresh=fresh)
    log = work.log("chunk", "chunks.jsonl")
    done = log.keys("doc_id")
    kept = kept_documents(work) if work.stage_dir("dedup").exists() else None
    todo = (doc for doc in documents(work)
            if doc["doc_id"] not in done and (kept is None or doc["doc_id"] in kept))
    new = 0
    with log.writer() as writer:
        for row in _rows(todo, settings, executor_for(workers, executor)):
            writer.write(row)
            new += 1
    passages = dropped = docs = biggest = 0
    for row in log.rows():
        docs += 1
        passages += len(row["passages"])
        dropped += row["dropped_short"]
        biggest = max([biggest] + [p["tokens"] for p in row["passages"]])
    summary = {"documents": docs, "passages": passages, "dropped_short": dropped,
               "max_tokens_seen": biggest, "newly_chunked": new, "settings": asdict(settings)}
    work.mark_done("chunk", summary)
    return summary


def passages(work: CorpusWork) -> Iterator[dict[str, Any]]:
    """Stream every passage with its document's provenance merged in."""
    for row in work.log("chunk", "chunks.jsonl").rows():
        for passage in row["passages"]:
            yield {**passage, "doc_id": row["doc_id"], "title": row["title"], "file": row["file"],
                   "source_url": row["source_url"], "format": row.get("format"),
                   "page_unit": row.get("page_unit"),
                   "front_matter": row.get("front_matter")}
