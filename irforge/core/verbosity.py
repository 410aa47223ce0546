"""How much irforge prints, set once by the command line's ``--quiet``/``--verbose``.

The level lives in an environment variable so worker processes see it too; library code
(progress bars) reads it here without importing the command-line layer.
"""

from __future__ import annotations

import os

VERBOSITY_ENV = "IRFORGE_VERBOSITY"


def verbosity() -> int:
    """-1 quiet, 0 normal, 1 verbose, 2 or more debug."""
    try:
        return int(os.environ.get(VERBOSITY_ENV, "0"))
    except ValueError:
        return 0


def quiet() -> bool:
    return verbosity() < 0
