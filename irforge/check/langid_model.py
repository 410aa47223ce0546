"""py3langid's language model, unpacked once into the user cache for fast loads.

The wheel ships the model LZMA-compressed (68 MB unpacked): decompressing it costs about a
second in every process that checks a language. :func:`load_identifier` unpacks it once into
``$XDG_CACHE_HOME/irforge/langid/<version>-<size>/`` as plain ``.npy`` arrays (the large one
memory-mapped) and builds the same identifier from them; where the cache cannot be written it
loads the wheel's file as py3langid does. A test asserts both give the same rankings.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

_ARRAYS = ("ptc", "pc", "nextmove", "nextmove_row")


def cache_dir() -> Path:
    """Where the unpacked model lives (``$XDG_CACHE_HOME/irforge/langid``, default ~/.cache)."""
    home = os.environ.get("XDG_CACHE_HOME") or Path("~/.cache").expanduser()
    return Path(home) / "irforge" / "langid"


def _packed(langid: Any) -> Path:
    path = Path(langid.MODEL_FILE)
    return path if path.is_absolute() else Path(langid.MODEL_DIR) / path


def _unpack(packed: Path, target: Path) -> None:
    """Write the model's arrays as ``.npy`` files and its lists as JSON, atomically."""
    import lzma

    import numpy as np

    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=".unpack-"))
    try:
        with tempfile.TemporaryFile(suffix=".npz") as raw:
            with lzma.open(packed) as source:
                shutil.copyfileobj(source, raw, length=1 << 20)
            raw.seek(0)
            with np.load(raw, allow_pickle=False) as data:
                for name in _ARRAYS:
                    np.save(staging / f"{name}.npy", data[name])
                lists = {"classes": data["classes"].tolist(),
                         "out_feat": data["out_feat"].tolist()}
        (staging / "lists.json").write_text(json.dumps(lists), encoding="utf-8")
        try:
            staging.rename(target)
        except OSError:  # another process unpacked it first
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _from_unpacked(langid: Any, folder: Path) -> Any:
    import numpy as np
    from py3langid.modelio import _to_array

    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in _ARRAYS}
    lists = json.loads((folder / "lists.json").read_text(encoding="utf-8"))
    return langid.LanguageIdentifier(
        arrays["ptc"], np.asarray(arrays["pc"]), lists["classes"],
        _to_array(arrays["nextmove"]), lists["out_feat"], norm_probs=True,
        tk_row=_to_array(arrays["nextmove_row"]))


def load_identifier(langid: Any) -> Any:
    """py3langid's identifier (normalised probabilities) from the unpacked cache."""
    from importlib.metadata import version

    packed = _packed(langid)
    folder = cache_dir() / f"{version('py3langid')}-{packed.stat().st_size}"
    try:
        if not (folder / "lists.json").is_file():
            _unpack(packed, folder)
        return _from_unpacked(langid, folder)
    except (OSError, ValueError, KeyError):  # unwritable or damaged cache: the wheel's file
        return langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)
