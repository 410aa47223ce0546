"""How much the user asked to see: ``--quiet``/``--verbose``, shared with worker processes."""

from __future__ import annotations

import logging
import os

VERBOSITY_ENV = "IRFORGE_VERBOSITY"  # set by the root options so worker processes see it too

def set_verbosity(level: int) -> None:
    """-1 quiet, 0 normal, 1 verbose (info logs), 2 or more debug logs."""
    os.environ[VERBOSITY_ENV] = str(level)
    if level > 0:
        logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
        logging.getLogger("irforge").setLevel(logging.INFO if level == 1 else logging.DEBUG)


def verbosity() -> int:
    """The level set by the root options: -1 quiet, 0 normal, 1 verbose, 2+ debug."""
    try:
        return int(os.environ.get(VERBOSITY_ENV, "0"))
    except ValueError:
        return 0


def quiet() -> bool:
    """Whether progress output is off (``--quiet``)."""
    return verbosity() < 0
