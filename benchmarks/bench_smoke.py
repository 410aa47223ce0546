"""The smoke mode every benchmark script shares: ``--smoke`` (or ``IRFORGE_BENCH_SMOKE=1``)
swaps the script's sizes for tiny ones, so the script runs end to end in seconds.

tests/benchmarks/test_smoke.py runs each script this way, so an import or API change breaks
``make test`` instead of the next measurement. Smoke figures measure nothing: read them only as
"the script still runs".
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

ENV = "IRFORGE_BENCH_SMOKE"


def smoke_requested(argv: Sequence[str]) -> bool:
    """Whether ``argv`` or the environment asks for the smoke mode."""
    return "--smoke" in argv or os.environ.get(ENV, "") not in ("", "0")


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None,
          **tiny: Any) -> argparse.Namespace:
    """``parser``'s arguments, with ``tiny``'s values in place of the given ones in smoke mode."""
    parser.add_argument("--smoke", action="store_true",
                        help=f"tiny sizes, seconds: the script still runs (also {ENV}=1)")
    args = parser.parse_args(argv)
    if args.smoke or smoke_requested(()):
        args.smoke = True
        for name, value in tiny.items():
            setattr(args, name, value)
    return args
