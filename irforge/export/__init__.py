"""``irforge export``: a benchmark folder in the formats other IR tools load as they are.

:data:`FORMATS` maps each format to the module that writes it; every module has
``export(source, out, options) -> ExportResult``. The exported folder holds only the
dataset (no ``eval/`` or ``audits/`` outputs), so folder loaders see nothing else.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from irforge.core.collection import Outcomes, benchmark_folders, for_each
from irforge.core.errors import IrforgeError
from irforge.core.generation import JOURNAL, generation
from irforge.export.owned import OWNED_FILE, owned_files, record_owned, remove_stale
from irforge.export.source import ExportResult, ExportSource

FORMATS: dict[str, str] = {
    "trec": "irforge.export.trec",
    "mteb": "irforge.export.mteb",
    "hf": "irforge.export.hf",
    "ir_datasets": "irforge.export.irds",
    "pyserini": "irforge.export.pyserini",
}

__all__ = ["FORMATS", "ExportResult", "ExportSource", "export_benchmark", "export_collection"]


def export_benchmark(bench_dir: Path, fmt: str, out: Path, **options: Any) -> ExportResult:
    """Write ``bench_dir`` to ``out`` in format ``fmt``; raises a user error on bad input."""
    _check_format(fmt)
    out = Path(out)
    if out.resolve() == Path(bench_dir).resolve():
        raise IrforgeError(f"--out {out} is the benchmark folder itself; export to a new folder")
    source = ExportSource.load(Path(bench_dir), split=options.pop("split", None))
    module = importlib.import_module(FORMATS[fmt])
    with generation(out):  # the folder holds the earlier export or this one, never a mix
        _check_new(out)
        out.mkdir(parents=True, exist_ok=True)
        result = module.export(source, out, **options)
        removed = remove_stale(out, result.files)
        record_owned(out, fmt, result.files)
    if removed:
        result.notes.append(f"removed {len(removed)} file(s) an earlier export wrote here and "
                            f"this one did not: {', '.join(p.name for p in removed[:5])}")
    return result


def export_collection(root: Path, fmt: str, out: Path, **options: Any) -> Outcomes[ExportResult]:
    """Export ``root``, or each benchmark of the collection under it to ``out/<name>``."""
    _check_format(fmt)
    found = benchmark_folders(root)
    if not found.is_collection:
        return for_each(found, lambda name, folder: export_benchmark(folder, fmt, out,
                                                                     **options))
    _check_new(Path(out), allowed={found.name(folder).split("/")[0] for folder in found.folders})
    return for_each(found, lambda name, folder: export_benchmark(
        folder, fmt, Path(out) / name, **dict(options)))


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        from difflib import get_close_matches

        close = get_close_matches(fmt, list(FORMATS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise IrforgeError(f"unknown export format {fmt!r}{hint}; use one of "
                           f"{', '.join(FORMATS)}")


def _check_new(out: Path, allowed: frozenset[str] | set[str] = frozenset()) -> None:
    """The export folder must be new, empty, or hold only what an earlier export wrote (which
    this one replaces), so it ships only the files this export wrote."""
    if out.is_file():
        raise IrforgeError(f"--out {out} is a file; export to a new or empty folder")
    if not out.is_dir():
        return
    root = out.resolve()
    owned = {path.relative_to(root).parts[0] for path in owned_files(out)}
    held = sorted(p.name for p in out.iterdir()
                  if p.name not in owned | set(allowed) | {OWNED_FILE, JOURNAL.parts[0]})
    if held:
        raise IrforgeError(f"--out {out} already holds {', '.join(held[:5])}"
                           f"{' ...' if len(held) > 5 else ''}; export to a new or empty "
                           "folder (an export ships only the files it writes)")
