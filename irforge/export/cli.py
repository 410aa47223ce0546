"""``irforge export BENCH --format FORMAT --out DIR``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.output import JsonOption, emit


def export_command(
    bench_dir: Annotated[Path, typer.Argument(
        help="Benchmark folder (BEIR layout), or a run folder (every method folder in it).")],
    fmt: Annotated[str, typer.Option(
        "--format", "-f", help="trec, mteb, hf, ir_datasets or pyserini.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write (a new folder).")],
    split: Annotated[str | None, typer.Option(
        help="Export only this qrels split (default: every split).")] = None,
    file_format: Annotated[str, typer.Option(
        help="hf/mteb data files: parquet or jsonl.")] = "parquet",
    license_id: Annotated[str | None, typer.Option(
        "--license", help="hf/mteb: SPDX licence id of the data (default: manifest 'license').")]
    = None,
    push: Annotated[str | None, typer.Option(
        help="hf: also upload to this Hub dataset repo (USER/NAME); needs HF_TOKEN.")] = None,
    private: Annotated[bool, typer.Option(help="hf: create the Hub repo private.")] = False,
    name: Annotated[str | None, typer.Option(
        help="ir_datasets: dataset name to register (default irforge/<folder>).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Write the benchmark for TREC tools, MTEB, Hugging Face, ir_datasets or Pyserini.

    On a run folder every method folder is exported to OUT/<method>.
    """
    from irforge.export import export_collection

    options: dict = {"split": split}
    if fmt in ("hf", "mteb"):
        options.update(file_format=file_format, license_id=license_id)
    if fmt == "hf":
        options.update(push=push, private=private)
    if fmt == "ir_datasets":
        options["name"] = name
    outcomes = export_collection(bench_dir, fmt, out, **options)
    exported = outcomes.done
    if len(exported) == 1 and not outcomes.failed and exported[0][1].out == out:
        result = exported[0][1]
        counts = ", ".join(f"{key}={value}" for key, value in result.counts.items())
        text = f"exported {bench_dir} as {result.format} to {out}: {counts}"
        emit(result.summary(), "\n".join([text, *(f"  {n}" for n in result.notes)]), as_json)
        return
    lines = [f"exported {len(exported)} benchmarks of {bench_dir} as {fmt} to {out}:"]
    for member, result in exported:
        counts = ", ".join(f"{key}={value}" for key, value in result.counts.items())
        lines += [f"  {member}: {counts}", *(f"    {n}" for n in result.notes)]
    emit({"out": out, "benchmarks": {member: result.summary() for member, result in exported}},
         "\n".join(lines), as_json)
    outcomes.raise_if_failed()
