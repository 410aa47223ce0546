"""The sample corpus shipped with irforge (original text written for this project, CC0)."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from irforge.records import Doc

SAMPLE_PACKAGE = "irforge.data"
SAMPLE_FOLDER = "sample_corpus"


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
