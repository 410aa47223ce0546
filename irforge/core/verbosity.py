"""How talkative a run is (``--quiet``/``--verbose``), read by every layer from one variable."""

from __future__ import annotations

import os

VERBOSITY_ENV = "IRFORGE_VERBOSITY"  # set by the root options so worker processes see it too


def verbosity() -> int:
    """-1 quiet, 0 normal, 1 verbose, 2 or more debug."""
    try:
        return int(os.environ.get(VERBOSITY_ENV, "0"))
    except ValueError:
        return 0


def quiet() -> bool:
    return verbosity() < 0
