"""Stage 2, extract: the files of a folder -> one clean text per document with provenance.

Every format (PDF in :mod:`irforge.corpus.formats.pdf`; Markdown, reST, HTML, Word,
PowerPoint, Excel, EPUB, text in any common encoding, existing corpora) is read by the readers
of :mod:`irforge.corpus.formats`, all under the same per-document cap (``max_chars``). Each
row keeps its provenance (file, pages or sections, character spans), so every later passage
can name where it came from. A file that cannot give text is skipped with a reason; it never
stops the run.
A file whose extraction killed the process (out of memory) is retried alone, in a process with
a memory cap, on the next run, and skipped with its reason if it fails again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from irforge.core.errors import EmptyResultError, MissingExtraError
from irforge.core.jsonl import write_jsonl
from irforge.corpus.collect import url_of_files
from irforge.corpus.formats import format_of
from irforge.corpus.formats.structure import TooLarge
from irforge.corpus.formats.text import NotText, decode_file
from irforge.corpus.state import CorpusWork
from irforge.scale.executor import BatchJob, Executor, executor_for

SUFFIXES = (".pdf", ".txt")  # what collect downloads; the extract stage reads every format


@dataclass(frozen=True)
class ExtractSettings:
    """What to remove while extracting."""

    remove_tables: bool = True
    remove_headers: bool = True
    margin: float = 0.07
    header_min_share: float = 0.5
    min_chars: int = 20
    max_chars: int = 5_000_000
    max_page_content_mb: float = 8.0
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    retry_memory_mb: int = 2048
    follow_symlinks: bool = False  # read files linked from outside the input folder

    def __post_init__(self) -> None:
        if self.max_chars < self.min_chars:
            raise ValueError(f"max_chars must be at least min_chars ({self.min_chars}), "
                             f"got {self.max_chars}")


# every character str.split() treats as whitespace -> " " (translate allocates no pieces)
_TO_SPACE = {ord(ch): " " for ch in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680"
             "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
             "\u2028\u2029\u202f\u205f\u3000"}
_SPACE_RUNS = re.compile(r"  +")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")


_ID_UNSAFE = re.compile(r"[^\w.\-]+")


def doc_id_of(path: Path | str) -> str:
    """The document id of an input file: its path relative to the input folder (suffix
    included, so ``a.pdf`` and ``a.txt`` differ) with '/', whitespace and other unsafe
    characters replaced; a short hash of the path is added when anything was replaced, so
    distinct paths never share an id. A file at the top of the folder keeps its bare name."""
    name = path if isinstance(path, str) else Path(path).as_posix()
    safe = _ID_UNSAFE.sub("_", name)
    if safe == name:
        return name
    # surrogateescape: a name of non-UTF-8 bytes hashes its own bytes (ids of others unchanged)
    return f"{safe}-{hashlib.sha1(name.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"


def _squeezed(text: str) -> str:
    """``" ".join(text.split())`` without a list of every word (megabyte paragraphs)."""
    return _SPACE_RUNS.sub(" ", text.translate(_TO_SPACE)).strip()


def _skip(name: str, reason: str) -> dict[str, Any]:
    return {"file": name, "status": "skipped", "reason": reason}


MAX_TITLE_CHARS = 300  # a longer first line is text, not a title


def extract_txt(path: Path, settings: ExtractSettings) -> dict[str, Any]:
    """A text file: a short first line followed by more is the title, blank lines separate
    paragraphs; a BOM is dropped, and a file of one long line is all text."""
    path = Path(path)
    return extract_txt_data(path.name, path, settings)


def extract_txt_data(name: str, data: bytes | Path, settings: ExtractSettings
                     ) -> dict[str, Any]:
    """The bytes (or path, streamed) of the text file ``name`` -> a document row, or a skip
    row with the reason (UTF-8, UTF-16/32 with a BOM, else Latin-1 with a warning)."""
    try:
        decoded = decode_file(data, settings.max_chars)
    except NotText as exc:
        return _skip(name, str(exc))
    encoding, warning = decoded.encoding, decoded.warning
    raw = decoded.text.replace("\r\n", "\n").replace("\r", "\n")
    del decoded
    title, _, body = raw.strip().partition("\n")
    if len(title) > MAX_TITLE_CHARS or not body.strip():
        title, body = "", raw
    del raw
    paragraphs = (_squeezed(p) for p in _PARAGRAPH_BREAK.split(body))
    text = "\n\n".join(p for p in paragraphs if p)
    if len(text) < settings.min_chars:
        return _skip(name, f"empty: fewer than {settings.min_chars} characters of text")
    row = {"file": name, "status": "ok", "doc_id": doc_id_of(name), "format": "txt",
           "encoding": encoding, "title": title.strip(), "text": text,
           "pages": [[1, 0, len(text)]], "page_count": 1, "skipped_pages": [], "removed": {}}
    if warning:
        row["warnings"] = [warning]
    return row


def extract_data(name: str, data: bytes | Path, settings: ExtractSettings) -> dict[str, Any]:
    """One file (its bytes, or its path to stream) -> its row: the reader of its format
    (:data:`irforge.corpus.formats.FORMATS`) under the per-document caps; every failure is
    a skip row with the reason, never an exception."""
    fmt = format_of(name)
    if fmt is None:
        return _skip(name, f"unsupported format {Path(name).suffix or '(none)'}")
    try:
        row = fmt.load()(name, data, settings)
    except TooLarge as exc:
        return _skip(name, f"too-large: {exc} (cap per document: --max-doc-chars "
                           f"{settings.max_chars:,}); split the file or raise the cap")
    except MemoryError as exc:
        return _skip(name, f"too-large: extraction ran out of memory ({str(exc)[:120]})")
    except NotText as exc:
        return _skip(name, str(exc))
    except MissingExtraError:
        raise  # an install problem, not this file's: stop with the pip command
    except OSError as exc:  # permissions, a file that went away: not the file's content
        return _skip(name, f"{UNREADABLE}: {exc.strerror or exc} (fix it and re-run: the "
                           "next run reads it again)")
    except ValueError as exc:
        reason = str(exc)
        if not reason.startswith(("broken:", "empty:")):
            reason = f"broken: the {fmt.name} reader failed (ValueError: {reason})"
        return _skip(name, reason)
    except Exception as exc:  # a damaged file must not stop the run; its reason is logged
        return _skip(name, f"broken: the {fmt.name} reader failed "
                           f"({type(exc).__name__}: {str(exc)[:300]})")
    if row["status"] == "ok":
        row.setdefault("format", fmt.name)
        row.setdefault("doc_id", doc_id_of(name))
        if not str(row.get("title") or "").strip():
            row["title"], row["title_from"] = title_from_name(name), "file name"
    return row


_NAME_SEPARATORS = re.compile(r"[-_.+\s]+")


def title_from_name(name: str) -> str:
    """A title from a file name, the last resort when a format names none:
    ``docs/how-to_listen.md`` -> ``How to listen``."""
    stem = Path(name).stem or Path(name).name
    words = _NAME_SEPARATORS.sub(" ", stem).strip() or Path(name).name
    return words[:1].upper() + words[1:] if words.islower() else words


def extract_file(args: tuple[Path, ExtractSettings]) -> dict[str, Any]:
    """One file on disk -> its row (streamed where the format allows)."""
    path, settings = args
    return extract_data(Path(path).name, Path(path), settings)


class FileExtractor:
    """The batch function of the extract stage: ``(name, bytes or path)`` items -> rows."""

    def __init__(self, settings: ExtractSettings) -> None:
        self.settings = settings

    def __call__(self, files: list[tuple[str, Any]]) -> list[dict[str, Any]]:
        return [extract_data(name, Path(data) if isinstance(data, str) else data,
                             self.settings) for name, data in files]


def input_files(folder: Path) -> list[Path]:
    """The document files ``discover`` finds in ``folder`` (default globs)."""
    from irforge.corpus.discover import discover

    return [found.path for found in discover(folder).found if found.kind == "document"]


def _results(found: list[Any], settings: ExtractSettings, executor: Executor,
             attempts: Any) -> Iterator[dict[str, Any]]:
    """Rows of ``found`` documents in input order; each file is logged in ``attempts`` as it
    is handed to a worker, so a run killed during a file leaves a trace of it."""
    # one file a batch; a local worker process is replaced after 200 files (PyMuPDF leaks)
    job = BatchJob(partial(FileExtractor, settings), batch_size=1, max_batches_per_worker=200,
                   name="extract")

    def handed(items: Iterator[Any]) -> Iterator[Any]:
        for item in items:
            attempts.write({"file": item.rel})
            yield item

    if executor.distributed:  # the cluster reads the files; rows come back in input order
        rels = [item.rel for item in found]
        rows = executor.map_files(job, [item.path for item in handed(iter(found))])
        for rel, row in zip(rels, rows, strict=True):
            yield {**row, "file": rel}
        return
    items: Iterable[Any] = ((item.rel, str(item.path)) for item in handed(iter(found)))
    if len(found) <= 1:
        items = list(items)  # one file: read here, no process pool to start
    yield from executor.map(job, items)


def _isolated_child(connection: Any, rel: str, path: str, settings: ExtractSettings) -> None:
    import resource

    limit = settings.retry_memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        row = extract_data(rel, Path(path), settings)
    except Exception as exc:  # reported by the parent as the file's crash
        row = {"crash": f"{type(exc).__name__}: {str(exc)[:200]}"}
    connection.send(row)
    connection.close()


def extract_isolated(rel: str, path: Path, settings: ExtractSettings,
                     timeout: float = 600.0) -> dict[str, Any]:
    """Extract one file in a process of its own with its address space capped at
    ``retry_memory_mb``: a file whose extraction killed a run is retried this way, and a
    second death is recorded as its skip reason instead of stopping every later run."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_isolated_child, args=(send, rel, str(path), settings))
    child.start()
    send.close()
    finished = receive.poll(timeout)
    try:
        row = receive.recv() if finished else None
    except EOFError:  # the child died before it could answer
        row = None
    child.join(5 if row is not None else 1)
    if child.is_alive():
        child.kill()
        child.join()
    if row is not None and "crash" not in row:
        return row
    how = (row["crash"] if row is not None else f"timed out after {timeout:g} s"
           if not finished else f"exit code {child.exitcode}")
    return _skip(rel, f"crashed: extracting this file ended the process in an earlier run, "
                      f"and again when retried alone with {settings.retry_memory_mb} MB of "
                      f"memory ({how}); skipped")


def _corpus_rows(item: Any, settings: ExtractSettings) -> Iterator[dict[str, Any]]:
    """The document rows of an existing corpus (ids kept), then a closing marker row; a bad
    corpus gives one skip row naming the line and field."""
    from irforge.corpus.formats import CORPUS_FORMATS, HF_DATASET
    from irforge.corpus.formats.corpora import BadCorpus, check_corpus, corpus_rows

    fmt = HF_DATASET if item.kind == HF_DATASET else CORPUS_FORMATS[item.path.suffix.lower()]
    try:
        count = check_corpus(item.path, settings.max_chars)
    except BadCorpus as exc:
        yield _skip(item.rel, str(exc))
        return
    except (OSError, UnicodeDecodeError) as exc:
        yield _skip(item.rel, f"broken: cannot read it as a {fmt} ({type(exc).__name__}: {exc})")
        return
    kept = 0
    for line, doc_id, title, text in corpus_rows(item.path):
        if len(text.strip()) < settings.min_chars:
            continue
        kept += 1
        yield {"file": item.rel, "status": "ok", "doc_id": doc_id, "format": fmt,
               "keep_id": True, "row": line, "title": title, "text": text, "page_unit": None,
               "pages": [[1, 0, len(text)]], "page_count": 1, "skipped_pages": [],
               "removed": {}}
    yield {"file": item.rel, "status": "corpus", "format": fmt, "rows": count,
           "documents": kept,
           "short_rows": count - kept}


UNREADABLE = "unreadable"  # a skip a re-run retries (the cause lies outside the file's bytes)


def _drop_retryable(log: Any) -> None:
    """Remove the skip rows of files that could not be opened (a permission error), so a
    re-run reads them again once fixed, without --fresh."""
    if not log.path.exists() or not any(_retryable(row) for row in log.rows()):
        return
    write_jsonl(log.path, [row for row in log.rows() if not _retryable(row)])


def _retryable(row: Mapping[str, Any]) -> bool:
    return row.get("status") == "skipped" and str(row.get("reason", "")).startswith(
        f"{UNREADABLE}:")


def _drop_partial_corpora(log: Any) -> None:
    """Remove the rows of a corpus file whose reading was cut short by a kill (no closing
    marker row), so it is read again whole."""
    started, closed = set(), set()
    for row in log.rows():
        if row.get("keep_id"):
            started.add(row["file"])
        elif row["status"] == "corpus":
            closed.add(row["file"])
    partial = started - closed
    if not partial:
        return
    temporary = log.path.with_suffix(".partial")
    with temporary.open("w", encoding="utf-8") as out:
        for line in log.path.open(encoding="utf-8"):
            if not line.strip() or json.loads(line).get("file") not in partial:
                out.write(line)
    os.replace(temporary, log.path)


TOP_REASONS = 5
RUN_ONLY_SETTINGS = {"retry_memory_mb"}  # may change between runs: outputs do not depend on it


def top_reasons(rows: Iterable[Mapping[str, Any]], limit: int = TOP_REASONS
                ) -> list[dict[str, Any]]:
    """The most common skip reasons with their count and one file as an example."""
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    for row in rows:
        if row["status"] == "skipped":
            counts[row["reason"]] += 1
            example.setdefault(row["reason"], row["file"])
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [{"reason": reason, "files": count, "example": example[reason]}
            for reason, count in ranked]


def _discovery(folder: Path, work: CorpusWork, settings: ExtractSettings) -> Any:
    from irforge.corpus.discover import discover

    return discover(folder, settings.include, settings.exclude, skip_dirs=[work.root.parent],
                    follow_symlinks=settings.follow_symlinks)


def extract(work: CorpusWork, input_dir: Path | None = None,
            settings: ExtractSettings | None = None, workers: int | None = None,
            fresh: bool = False, executor: Executor | None = None) -> dict[str, Any]:
    """Extract every input not yet in ``extract/documents.jsonl``; returns manifest counts.

    The folder is walked by :func:`irforge.corpus.discover.discover`; paths it does not read
    are logged with their reason. Documents are read by ``executor`` (default: the active one,
    else a process pool of ``workers``); existing corpora are streamed here. Rows are logged
    in input order whichever executor ran them. No document at all is an
    :class:`EmptyResultError` naming the top reasons."""
    settings = settings or ExtractSettings()
    folder = Path(input_dir) if input_dir else work.files_dir
    if not folder.is_dir():
        from irforge.core.errors import IrforgeError

        what = "is a file, not a folder" if folder.exists() else "no such folder"
        raise IrforgeError(f"{folder}: {what}; pass a folder of documents with --input DIR, "
                           "or run 'irforge corpus collect' first")
    params = {key: value for key, value in settings.__dict__.items()
              if key not in RUN_ONLY_SETTINGS}
    params["input"] = str(folder.resolve())
    work.start("extract", params, fresh=fresh)
    log = work.log("extract", "documents.jsonl")
    _drop_partial_corpora(log)
    _drop_retryable(log)
    attempts = work.log("extract", "attempts.jsonl")
    done = log.keys("file")
    suspects = attempts.keys("file") - done
    found = _discovery(folder, work, settings)
    urls = url_of_files(work)
    new = 0
    with log.writer() as writer:
        for rel, reason in found.skipped:
            if rel not in done:
                writer.write(_skip(rel, reason))
        todo = [item for item in found.found if item.rel not in done]
        for item in todo:
            if item.rel in suspects:  # it was being read when an earlier run died
                writer.write(_finish(extract_isolated(item.rel, item.path, settings),
                                     item, urls))
        documents_todo = [item for item in todo
                          if item.kind == "document" and item.rel not in suspects]
        with attempts.writer() as attempted:
            rows = _results(documents_todo, settings, executor_for(workers, executor),
                            attempted)
            for item, row in zip(documents_todo, rows, strict=True):
                writer.write(_finish(row, item, urls))
        for item in todo:
            if item.kind != "document" and item.rel not in suspects:
                for row in _corpus_rows(item, settings):
                    writer.write({**row, "path": str(item.path.resolve())})
        new = len(todo)
    return _summary(work, log, folder, new, settings)


def _finish(row: dict[str, Any], item: Any, urls: Mapping[str, str]) -> dict[str, Any]:
    """A worker's row with the input's relative path, id and provenance filled in."""
    row = {**row, "file": item.rel}
    if row["status"] == "ok":
        row["doc_id"] = doc_id_of(item.rel)
    if item.rel in urls:
        row["source_url"] = urls[item.rel]
    row["path"] = str(item.path.resolve())
    return row


def _summary(work: CorpusWork, log: Any, folder: Path, new: int, settings: ExtractSettings
             ) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    formats: Counter[str] = Counter()
    warned = 0
    for row in log.rows():
        counts[row["status"]] += 1
        if row["status"] == "skipped":
            reasons[row["reason"].split(":")[0]] += 1
        elif row["status"] == "ok":
            formats[row.get("format", "pdf")] += 1
            warned += bool(row.get("warnings"))
    top = top_reasons(log.rows())
    summary = {"input": str(folder), "documents": counts.get("ok", 0),
               "skipped": counts.get("skipped", 0), "skip_reasons": dict(sorted(reasons.items())),
               "top_reasons": top, "formats": dict(sorted(formats.items())),
               "with_warnings": warned, "newly_extracted": new, "settings": settings.__dict__}
    if not summary["documents"]:
        lines = "; ".join(f"{r['files']} x {r['reason']} (e.g. {r['example']})" for r in top)
        raise EmptyResultError(
            f"{folder}: no document could be read ({summary['skipped']} paths skipped"
            + (f"; top reasons: {lines}" if lines else ": the folder is empty") + "). "
            "Fix: add files of a readable format (.pdf, .txt, .md, .rst, .html, .docx, "
            ".pptx, .xlsx, .epub, a corpus .jsonl), or check --include/--exclude; every "
            f"reason is in {log.path}")
    work.mark_done("extract", summary)
    return summary


def documents(work: CorpusWork) -> Iterator[dict[str, Any]]:
    """Stream the extracted documents (rows with status ok)."""
    return (row for row in work.log("extract", "documents.jsonl").rows() if row["status"] == "ok")
