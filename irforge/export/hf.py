"""Hugging Face export: the dataset folder plus a dataset card; ``push`` uploads it."""

from __future__ import annotations

from pathlib import Path

from irforge.core.jsonl import atomic_open
from irforge.export.card import card_text
from irforge.export.hf_folder import front_matter, write_configs
from irforge.export.source import ExportResult, ExportSource


def write_card(source: ExportSource, out: Path, configs: list, license_id: str,
               pretty_name: str) -> Path:
    header = front_matter(configs, {
        "pretty_name": pretty_name, "license": license_id, "task_categories": ["text-retrieval"],
        "task_ids": ["document-retrieval"], "tags": ["irforge", "mteb", "beir"]})
    path = out / "README.md"
    with atomic_open(path) as handle:
        handle.write(header + "\n" + card_text(source, license_id, pretty_name))
    return path


def export(source: ExportSource, out: Path, file_format: str = "parquet",
           license_id: str | None = None, push: str | None = None,
           private: bool = False) -> ExportResult:
    files, configs = write_configs(source, out, file_format)
    chosen, where = source.licence(license_id)
    files.append(write_card(source, out, configs, chosen, source.name))
    notes = [f"licence {chosen} (from {where})"]
    if chosen == "unknown":
        notes = [f"licence unknown ({where}): pass --license (an SPDX id such as cc-by-4.0)"]
    if push:
        notes.append(f"pushed to https://huggingface.co/datasets/{push_folder(out, push, private)}")
    return ExportResult("hf", out, files, source.counts(), notes)


def push_folder(folder: Path, repo_id: str, private: bool = False) -> str:
    """Create the dataset repo if needed and upload the folder (needs ``HF_TOKEN``)."""
    from irforge.core.errors import IrforgeError, require

    hub = require("huggingface_hub", "export")
    api = hub.HfApi()
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset",
                          commit_message="irforge export")
    except Exception as exc:  # network, auth and offline mode all end here
        raise IrforgeError(f"could not push {folder} to {repo_id}: {exc} (log in with "
                           f"`hf auth login` or set HF_TOKEN; the folder is written and can "
                           f"be pushed again)") from exc
    return repo_id
