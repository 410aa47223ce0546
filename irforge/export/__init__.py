"""``irforge export``: a benchmark folder in the formats other IR tools load as they are.

:data:`FORMATS` maps each format to the module that writes it; every module has
``export(source, out, options) -> ExportResult``. The exported folder holds only the
dataset (no ``eval/`` or ``audits/`` outputs), so folder loaders see nothing else; exporting
into a folder again removes the files the earlier export wrote and this one did not
(:mod:`irforge.export.owned`).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from irforge.core.errors import IrforgeError
from irforge.export.owned import record_owned, remove_stale
from irforge.export.source import ExportResult, ExportSource

FORMATS: dict[str, str] = {
    "trec": "irforge.export.trec",
    "mteb": "irforge.export.mteb",
    "hf": "irforge.export.hf",
    "ir_datasets": "irforge.export.irds",
    "pyserini": "irforge.export.pyserini",
}

__all__ = ["FORMATS", "ExportResult", "ExportSource", "export_benchmark"]


def export_benchmark(bench_dir: Path, fmt: str, out: Path, **options: Any) -> ExportResult:
    """Write ``bench_dir`` to ``out`` in format ``fmt``; raises a user error on bad input."""
    if fmt not in FORMATS:
        from difflib import get_close_matches

        close = get_close_matches(fmt, list(FORMATS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise IrforgeError(f"unknown export format {fmt!r}{hint}; use one of "
                           f"{', '.join(FORMATS)}")
    out = Path(out)
    if out.resolve() == Path(bench_dir).resolve():
        raise IrforgeError(f"--out {out} is the benchmark folder itself; export to a new folder")
    source = ExportSource.load(Path(bench_dir), split=options.pop("split", None))
    module = importlib.import_module(FORMATS[fmt])
    out.mkdir(parents=True, exist_ok=True)
    result = module.export(source, out, **options)
    removed = remove_stale(out, result.files)
    record_owned(out, fmt, result.files)
    if removed:
        result.notes.append(f"removed {len(removed)} file(s) an earlier export wrote here and "
                            f"this one did not: {', '.join(p.name for p in removed[:5])}")
    return result
