"""Loading a sentence-transformers model the one way every stage does: quietly.

transformers draws a "Loading weights" progress bar for every load; in logs and CI it is
noise between irforge's own lines, so it is switched off before the model loads.
"""

from __future__ import annotations

from typing import Any

from irforge.core.errors import require


def sentence_transformer(location: str, device: str, **kwargs: Any) -> Any:
    """A ``SentenceTransformer`` at ``location`` on ``device``, loaded without progress bars."""
    st = require("sentence_transformers", "eval")
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    return st.SentenceTransformer(location, device=device, **kwargs)
