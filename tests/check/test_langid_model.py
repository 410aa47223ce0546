"""The unpacked language model ranks exactly as py3langid's own loader, and a cache that
cannot be written falls back to the wheel's file."""

from __future__ import annotations

from pathlib import Path

import py3langid.langid as langid
import pytest

from irforge.check.langid_model import cache_dir, load_identifier

TEXTS = ["Wie lang muss ein Dipol für das 40-Meter-Band sein?",
         "How long should each leg of a dipole be?", "¿Cómo se aplica el esmalte?",
         "Combien de temps faut-il cuire le pain ?", "chain", "lube lube lube lube"]


@pytest.fixture(scope="module")
def reference():
    return langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)


def test_unpacked_model_ranks_as_the_packed_one(tmp_path: Path, monkeypatch, reference):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = load_identifier(langid)
    unpacked = list(cache_dir().iterdir())
    assert len(unpacked) == 1 and (unpacked[0] / "ptc.npy").is_file()
    second = load_identifier(langid)  # read back from the cache
    for text in TEXTS:
        assert first.rank(text) == reference.rank(text) == second.rank(text)


def test_an_unwritable_cache_loads_the_wheels_file(tmp_path: Path, monkeypatch, reference):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    identifier = load_identifier(langid)
    assert [identifier.classify(t) for t in TEXTS] == [reference.classify(t) for t in TEXTS]
