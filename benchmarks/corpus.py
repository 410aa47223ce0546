"""Corpus pipeline benchmark: stage throughput, planted-duplicate recall/precision, and
MinHash-LSH against a plain datasketch loop, all in one run on this machine.

A synthetic corpus of ``--size`` passages (DisastIR's corpus has about 240,000) is made from
the words of the shipped sample corpus: documents of eight paragraphs, each paragraph one
passage (long enough that two never share a 256-token chunk). Two kinds of duplicates are
planted: near-copies of whole documents (a few words changed; the MinHash-LSH stage should
drop them) and near-copies of single paragraphs inside otherwise new documents (the
embedding stage should drop them). Run by hand, not in CI::

    python benchmarks/corpus.py --size 240000        # DisastIR scale (embedding needs hours on CPU)
    python benchmarks/corpus.py --size 8000 --peer-size 4000
    python benchmarks/corpus.py --ray local --size 240000 --skip-embedding   # Ray vs 1 process
    python benchmarks/corpus.py --ray local --size 5000                      # with embeddings
    python benchmarks/corpus.py --formats 1000   # per-format extraction vs each library

With ``--ray ADDRESS`` (``local`` starts a cluster here) every stage runs twice on the same
input, once in a single process and once on the Ray cluster, and the table gives each one's
throughput, the Ray/single ratio and whether the outputs are identical.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import tempfile
import time
from pathlib import Path

from bench_smoke import parse

PARAGRAPHS_PER_DOC = 8


def _vocabulary() -> list[str]:
    from irforge.data.sample import sample_corpus_dir

    words: set[str] = set()
    for path in sample_corpus_dir().glob("*.txt"):
        words.update(re.findall(r"[a-z]{3,}", path.read_text(encoding="utf-8").lower()))
    return sorted(words)


def _paragraph(rng: random.Random, topic: list[str]) -> str:
    sentences = []
    for _ in range(10):
        words = [rng.choice(topic) for _ in range(rng.randint(11, 15))]
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


def _mutate(text: str, rng: random.Random, vocabulary: list[str], edits: int) -> str:
    words = text.split(" ")
    for _ in range(edits):
        index = rng.randrange(len(words))
        words[index] = rng.choice(vocabulary) + ("." if words[index].endswith(".") else "")
    return " ".join(words)


def synthetic_corpus(size: int, seed: int, doc_dup_rate: float, passage_dup_rate: float):
    """Documents as (doc_id, paragraphs) plus the planted duplicate ids."""
    rng = random.Random(seed)
    vocabulary = _vocabulary()
    docs: list[tuple[str, list[str]]] = []
    planted_docs: dict[str, str] = {}  # near-copy -> its source document
    planted_passages: set[tuple[str, int]] = set()
    for number in range(max(2, size // PARAGRAPHS_PER_DOC)):
        doc_id = f"doc{number:06d}"
        if docs and rng.random() < doc_dup_rate:
            source_id, source = rng.choice(docs)
            docs.append((doc_id, [_mutate(p, rng, vocabulary, 2) for p in source]))
            planted_docs[doc_id] = source_id
            continue
        topic = rng.sample(vocabulary, 120)
        paragraphs = [_paragraph(rng, topic) for _ in range(PARAGRAPHS_PER_DOC)]
        if docs and rng.random() < passage_dup_rate * PARAGRAPHS_PER_DOC:
            other_id, other = rng.choice(docs)
            if other_id not in planted_docs:
                slot = rng.randrange(PARAGRAPHS_PER_DOC)
                paragraphs[slot] = _mutate(rng.choice(other), rng, vocabulary, 2)
                planted_passages.add((doc_id, slot))
        docs.append((doc_id, paragraphs))
    return docs, planted_docs, planted_passages


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(label: str, items: int, unit: str, function):
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    print(f"{label:<34} {items:>9,} {unit:<9} {seconds:8.1f} s  {items / seconds:10,.0f} {unit}/s"
          f"  (peak RSS {_rss_mb():,.0f} MB)", flush=True)
    return result, seconds


def _recall_precision(removed: set, planted: set) -> str:
    hit = len(removed & planted)
    recall = hit / len(planted) if planted else float("nan")
    precision = hit / len(removed) if removed else float("nan")
    return (f"planted {len(planted)}, removed {len(removed)}, recall {recall:.3f}, "
            f"precision {precision:.3f}")


def _recall_by_jaccard(docs, planted: dict[str, str], removed: set[str]) -> None:
    """Recall of the document dedup per band of the plants' true Jaccard with their source."""
    from irforge.corpus.minhash import shingles

    text = {doc_id: " ".join(paragraphs) for doc_id, paragraphs in docs}
    bands: dict[str, list[bool]] = {">=0.90": [], "0.85-0.90": [], "0.80-0.85": [],
                                    "<0.80": []}
    for copy, source in planted.items():
        first, second = shingles(text[copy], 5), shingles(text[source], 5)
        jaccard = len(first & second) / len(first | second)
        band = (">=0.90" if jaccard >= 0.9 else "0.85-0.90" if jaccard >= 0.85
                else "0.80-0.85" if jaccard >= 0.8 else "<0.80")
        bands[band].append(copy in removed)
    print("  recall by the plants' true 5-gram Jaccard with their source: " + ", ".join(
        f"{band}: {sum(hits)}/{len(hits)}" for band, hits in bands.items() if hits))


def bench_extract(folder: Path, docs, count: int, workers: int) -> None:
    from irforge.corpus.extract import extract
    from irforge.corpus.state import CorpusWork
    from irforge.demo.corpus import render_pdf

    pdf_dir = folder / "pdfs"
    pdf_dir.mkdir()
    for doc_id, paragraphs in docs[:count]:
        render_pdf(f"Report {doc_id}", paragraphs, pdf_dir / f"{doc_id}.pdf", "Synthetic bulletin")
    import pymupdf

    pages = sum(pymupdf.open(path).page_count for path in pdf_dir.glob("*.pdf"))
    work = CorpusWork.of(folder / "extract-bench")
    _timed("extract (PyMuPDF, tables+layout)", pages, "pages",
           lambda: extract(work, pdf_dir, workers=workers))


def bench_minhash_peers(docs, peer_size: int, workers: int) -> None:
    """Our batched MinHash + datasketch LSH vs the plain datasketch loop, same passages."""
    import datasketch

    from irforge.corpus.dedup import DedupSettings, near_duplicates
    from irforge.corpus.minhash import shingles

    items = [(f"{doc_id}_{i}", p) for doc_id, ps in docs for i, p in enumerate(ps)][:peer_size]
    settings = DedupSettings()

    def plain_loop(batch: bool):
        lsh = datasketch.MinHashLSH(threshold=settings.threshold, num_perm=settings.num_perm,
                                    weights=settings.lsh_weights)
        kept: dict[str, datasketch.MinHash] = {}
        removed = set()
        for key, text in items:
            minhash = datasketch.MinHash(num_perm=settings.num_perm, seed=settings.seed)
            grams = shingles(text, settings.shingle_size)
            if batch:
                minhash.update_batch(list(grams))
            else:
                for gram in grams:
                    minhash.update(gram)
            if any(kept[other].jaccard(minhash) >= settings.threshold
                   for other in lsh.query(minhash)):
                removed.add(key)
            else:
                lsh.insert(key, minhash)
                kept[key] = minhash
        return removed

    def ours(processes: int):
        return {row["doc_id"] for row in near_duplicates(items, settings, workers=processes)
                if row["status"] == "duplicate"}

    print(f"\nMinHash-LSH, {len(items):,} passages, threshold {settings.threshold}, "
          f"{settings.num_perm} permutations, {settings.shingle_size}-word shingles")
    reference, loop_s = _timed("  datasketch loop (update)", len(items), "passages",
                               lambda: plain_loop(False))
    batched, batch_s = _timed("  datasketch loop (update_batch)", len(items), "passages",
                              lambda: plain_loop(True))
    single, ours_s = _timed("  irforge (1 process)", len(items), "passages", lambda: ours(1))
    multi, multi_s = _timed(f"  irforge ({workers} processes)", len(items), "passages",
                            lambda: ours(workers))
    print(f"  speed-up vs datasketch update loop: {loop_s / ours_s:.1f}x (1 process), "
          f"{loop_s / multi_s:.1f}x ({workers} processes); vs update_batch loop: "
          f"{batch_s / ours_s:.1f}x / {batch_s / multi_s:.1f}x")
    print(f"  same removals as the datasketch loop: {reference == single == multi == batched} "
          f"({len(reference)} removed)")


def _write_extracted(work, docs) -> None:
    with work.log("extract", "documents.jsonl").writer() as writer:
        for doc_id, paragraphs in docs:
            text = "\n\n".join(paragraphs)
            writer.write({"file": f"{doc_id}.txt", "status": "ok", "doc_id": doc_id,
                          "title": "", "text": text, "pages": [[1, 0, len(text)]],
                          "page_count": 1})


def _same_files(first: Path, second: Path, names: list[str]) -> bool:
    return all((first / name).read_bytes() == (second / name).read_bytes() for name in names
               if (first / name).exists() or (second / name).exists())


def compare_with_ray(args: argparse.Namespace, docs, folder: Path) -> None:
    """Each stage in one process and on the Ray cluster, on the same input; throughputs,
    the ratio, and whether outputs are identical (embeddings: largest difference)."""
    import numpy as np

    from irforge.corpus.chunk import ChunkSettings
    from irforge.corpus.chunk_stage import chunk_documents, passages
    from irforge.corpus.dedup import dedup_documents, kept_documents
    from irforge.corpus.extract import extract
    from irforge.corpus.passage_dedup import PassageDedupSettings, dedup_passages
    from irforge.corpus.state import CorpusWork
    from irforge.corpus.write import write_corpus
    from irforge.scale.executor import LocalExecutor, cluster

    pdf_dir = folder / "pdfs"
    if args.pdf_docs:
        from irforge.demo.corpus import render_pdf

        pdf_dir.mkdir()
        for doc_id, paragraphs in docs[:args.pdf_docs]:
            render_pdf(f"Report {doc_id}", paragraphs, pdf_dir / f"{doc_id}.pdf", "Bulletin")
    chunk_settings = ChunkSettings(tokenizer=args.tokenizer)
    embed_settings = PassageDedupSettings(device=args.device)
    with cluster(args.ray) as ray:
        assert ray is not None
        nodes = sum(1 for node in ray.ray.nodes() if node["Alive"])
        print(f"Ray cluster {args.ray}: {nodes} node(s), {ray.cpus} CPUs, {ray.gpus:g} GPUs; "
              f"single = one process, this machine\n")
        works = {}
        for mode in ("single", "ray"):
            works[mode] = CorpusWork.of(folder / mode)
            _write_extracted(works[mode], docs)
        stages = [
            ("extract (PDFs)", args.pdf_docs, "files",
             lambda work, ex: extract(CorpusWork.of(work.root.parent / "pdf"), pdf_dir,
                                      executor=ex), ["pdf/corpus_work/extract/documents.jsonl"]),
            ("dedup documents (MinHash-LSH)", len(docs), "docs",
             lambda work, ex: dedup_documents(work, executor=ex),
             ["corpus_work/dedup/decisions.jsonl"]),
            ("chunk", lambda: len(kept_documents(works["single"])), "kept docs",
             lambda work, ex: chunk_documents(work, chunk_settings, executor=ex),
             ["corpus_work/chunk/chunks.jsonl"]),
        ]
        if not args.skip_embedding:
            stages.append(("dedup passages (MiniLM + usearch)",
                           lambda: sum(1 for _ in passages(works["single"])), "passages",
                           lambda work, ex: dedup_passages(work, embed_settings, executor=ex),
                           ["corpus_work/dedup_passages/report.jsonl"]))
        print(f"{'stage':<34} {'items':>9}  {'single':>16}  {'ray':>16}  {'ray/single':>10}"
              "  identical")
        for label, count, unit, function, outputs in stages:
            count = count() if callable(count) else count
            if not count:
                continue
            seconds, load = {}, {}
            for mode, executor in (("single", LocalExecutor(1)), ("ray", ray)):
                start = time.perf_counter()
                function(works[mode], executor)
                seconds[mode] = time.perf_counter() - start
                load[mode] = os.getloadavg()[0]
            same = _same_files(folder / "single", folder / "ray", outputs)
            short = unit.split()[-1][:5]
            print(f"{label:<34} {count:>9,}  {count / seconds['single']:>10,.0f} {short}/s"
                  f"  {count / seconds['ray']:>10,.0f} {short}/s"
                  f"  {seconds['single'] / seconds['ray']:>9.2f}x  {same}  "
                  f"({seconds['single']:.1f} s vs {seconds['ray']:.1f} s; load average "
                  f"{load['single']:.1f} / {load['ray']:.1f})", flush=True)
        for mode in ("single", "ray"):  # the driver writes corpus.jsonl in both modes
            write_corpus(works[mode], works[mode].bench)
        print(f"corpus.jsonl identical: "
              f"{_same_files(folder / 'single', folder / 'ray', ['corpus.jsonl'])}")
        if not args.skip_embedding:
            vectors = [np.load(folder / mode / "corpus_work/dedup_passages/embeddings.npy")
                       for mode in ("single", "ray")]
            print(f"  embeddings: largest difference {np.abs(vectors[0] - vectors[1]).max():.2e}")
    print(f"\nwork folder: {folder}")


def run(args: argparse.Namespace) -> None:
    if args.formats:
        import sys

        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from corpus_formats import run as run_formats

        run_formats(args.formats, args.peers)
        return
    from irforge.corpus.chunk import ChunkSettings
    from irforge.corpus.chunk_stage import chunk_documents, passages
    from irforge.corpus.dedup import dedup_documents, kept_documents
    from irforge.corpus.passage_dedup import (
        PassageDedupSettings,
        dedup_passages,
        removed_passages,
    )
    from irforge.corpus.state import CorpusWork
    from irforge.corpus.write import write_corpus

    docs, planted_docs, planted_passages = synthetic_corpus(
        args.size, args.seed, args.doc_dup_rate, args.passage_dup_rate)
    total = sum(len(p) for _, p in docs)
    print(f"synthetic corpus: {len(docs):,} documents, {total:,} paragraphs; planted "
          f"{len(planted_docs):,} near-duplicate documents and {len(planted_passages):,} "
          f"near-duplicate passages; workers {args.workers}\n")
    folder = Path(tempfile.mkdtemp(prefix="irforge-corpus-bench-"))
    if args.ray:
        compare_with_ray(args, docs, folder)
        return
    if args.pdf_docs:
        bench_extract(folder, docs, args.pdf_docs, args.workers)
    work = CorpusWork.of(folder / "bench")
    _write_extracted(work, docs)
    _timed("dedup documents (MinHash-LSH)", len(docs), "docs",
           lambda: dedup_documents(work, workers=args.workers))
    removed_docs = {doc_id for doc_id, _ in docs} - kept_documents(work)
    print(f"  document dedup: {_recall_precision(removed_docs, set(planted_docs))}")
    _recall_by_jaccard(docs, planted_docs, removed_docs)
    chunk_settings = ChunkSettings(tokenizer=args.tokenizer)
    summary, _ = _timed(f"chunk ({args.tokenizer} tokens, max 256)",
                        len(docs) - len(removed_docs), "docs",
                        lambda: chunk_documents(work, chunk_settings, workers=args.workers))
    print(f"  {summary['passages']:,} passages, largest {summary['max_tokens_seen']} tokens")
    if not args.skip_embedding:
        settings = PassageDedupSettings(device=args.device)
        _timed("dedup passages (MiniLM + usearch)", summary["passages"], "passages",
               lambda: dedup_passages(work, settings))
        removed = set()
        for passage_id in removed_passages(work):
            doc_id, _, number = passage_id.rpartition("_")
            removed.add((doc_id, int(number)))
        planted = {(doc, slot) for doc, slot in planted_passages if doc not in removed_docs}
        # near-copied documents the MinHash stage missed are near-duplicates passage by passage
        planted |= {(doc, slot) for doc in set(planted_docs) - removed_docs
                    for slot in range(PARAGRAPHS_PER_DOC)}
        print(f"  passage dedup: {_recall_precision(removed, planted)}")
        aligned = all(len(row["passages"]) == PARAGRAPHS_PER_DOC
                      for row in work.log("chunk", "chunks.jsonl").rows())
        print(f"  (passage i of a document is its paragraph i: {aligned})")
    count = sum(1 for _ in passages(work))
    _timed("write corpus.jsonl", count, "passages", lambda: write_corpus(work, work.bench))
    bench_minhash_peers(docs, args.peer_size, args.workers)
    print(f"\nwork folder: {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=240_000, help="passages in the corpus")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--doc-dup-rate", type=float, default=0.03)
    parser.add_argument("--passage-dup-rate", type=float, default=0.02)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tokenizer", default="minilm")
    parser.add_argument("--device", default="cpu", help="embedding device (cpu, cuda)")
    parser.add_argument("--pdf-docs", type=int, default=40, help="documents rendered to PDF")
    parser.add_argument("--peer-size", type=int, default=20_000,
                        help="passages in the MinHash-LSH comparison with datasketch")
    parser.add_argument("--skip-embedding", action="store_true")
    parser.add_argument("--formats", type=int, default=0, metavar="FILES",
                        help="only the per-format extraction benchmark on the mixed fixture "
                             "scaled to FILES files (benchmarks/corpus_formats.py)")
    parser.add_argument("--peers", action="store_true",
                        help="with --formats: also time the alternative libraries")
    parser.add_argument("--ray", default=None, metavar="ADDRESS",
                        help="compare every stage in one process with a Ray cluster "
                             "(HOST:PORT, or 'local' to start one here)")
    run(parse(parser, None, size=160, peer_size=160, pdf_docs=2, workers=1, formats=0,
              peers=False, ray=None))


if __name__ == "__main__":
    main()
