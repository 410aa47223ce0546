"""Loading MiniLM prints nothing between irforge's own lines (no "Loading weights" bar)."""

from __future__ import annotations

from irforge.core.models import sentence_transformer
from irforge.corpus.tokenizers import minilm_path


def test_loading_a_sentence_model_draws_no_progress_bar(capfd) -> None:
    model = sentence_transformer(str(minilm_path()), "cpu")
    assert model.encode(["tide pools"]).shape == (1, 384)
    out, err = capfd.readouterr()
    assert "Loading weights" not in out + err and "it/s" not in out + err
