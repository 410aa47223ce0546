"""The sample corpus shipped with irforge (original text written for this project, CC0).

Besides the 18 documents, irforge ships a hand-written query set for them
(``sample_queries.jsonl``, ``sample_qrels.tsv``, also CC0): qrels are at document level, so
they point at the whole documents of :func:`sample_docs`, not at the corpus pipeline's passages.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from irforge.core.records import Doc, Qrel, Query

SAMPLE_PACKAGE = "irforge.data"
SAMPLE_FOLDER = "sample_corpus"
SAMPLE_QUERIES = "sample_queries.jsonl"
SAMPLE_QRELS = "sample_qrels.tsv"
SAMPLE_LICENSE = "cc0-1.0"  # sample_corpus/LICENSE.md (SPDX id, as the Hugging Face Hub spells it)


def sample_corpus_dir() -> Path:
    """Folder of the shipped sample documents (one ``.txt`` each, first line is the title)."""
    return Path(str(resources.files(SAMPLE_PACKAGE).joinpath(SAMPLE_FOLDER)))


def read_text_folder(folder: Path) -> Iterator[Doc]:
    """Documents from a folder of UTF-8 ``.txt`` files: the first line is the title.

    Doc ids are the file stems, so they stay stable when files are added.
    """
    for path in sorted(Path(folder).glob("*.txt")):
        title, _, body = path.read_text(encoding="utf-8").strip().partition("\n")
        yield Doc(doc_id=path.stem, title=title.strip(), text=" ".join(body.split()),
                  metadata={"source": path.name})


def sample_docs() -> list[Doc]:
    return list(read_text_folder(sample_corpus_dir()))


def _data_file(name: str) -> Path:
    return Path(str(resources.files(SAMPLE_PACKAGE).joinpath(name)))


def sample_queries() -> list[Query]:
    """The 24 hand-written queries for the sample corpus (metadata ``source: hand-written``)."""
    from irforge.core.beir import read_queries

    return list(read_queries(_data_file(SAMPLE_QUERIES)))


def sample_qrels() -> list[Qrel]:
    """Graded document-level qrels of :func:`sample_queries` (2 answers, 1 answers in part)."""
    from irforge.core.beir import read_qrels

    return list(read_qrels(_data_file(SAMPLE_QRELS)))


def write_seed_benchmark(folder: Path) -> dict[str, int]:
    """Write the sample documents, queries and qrels as a BEIR benchmark in ``folder``."""
    from irforge.core.bench import Benchmark

    bench = Benchmark(folder)
    counts = {"docs": bench.write_corpus(sample_docs()),
              "queries": bench.write_queries(sample_queries()),
              "qrels": bench.write_qrels(sample_qrels())}
    bench.record_step("seed", {"source": "irforge hand-written sample queries (CC0)",
                               "license": SAMPLE_LICENSE, "qrels_level": "document", **counts})
    return counts
