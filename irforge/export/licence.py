"""The data licence of an export: ``--license``, else what the manifest records, else the
licence file of the corpus (``LICENSE*`` / ``COPYING*`` beside the benchmark or in the folder
``irforge corpus build --input`` read), recognised by its wording; else ``unknown``."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

UNKNOWN = "unknown"
LICENCE_FILES = ("LICENSE", "LICENCE", "COPYING")

# (pattern over the file's text, SPDX id as the Hub spells it), most specific first
WORDINGS: tuple[tuple[str, str], ...] = (
    (r"\bCC0\b|public\s+domain\s+dedication", "cc0-1.0"),
    (r"\bCC[\s-]+BY[\s-]+NC[\s-]+SA[\s-]+4\.0\b", "cc-by-nc-sa-4.0"),
    (r"\bCC[\s-]+BY[\s-]+NC[\s-]+4\.0\b", "cc-by-nc-4.0"),
    (r"\bCC[\s-]+BY[\s-]+SA[\s-]+4\.0\b", "cc-by-sa-4.0"),
    (r"\bCC[\s-]+BY[\s-]+4\.0\b|Attribution\s+4\.0\s+International", "cc-by-4.0"),
    (r"Apache\s+License,?\s+Version\s+2\.0|\bApache-2\.0\b", "apache-2.0"),
    (r"\bMIT\s+License\b", "mit"),
    (r"Open\s+Data\s+Commons\s+Attribution|\bODC-By\b", "odc-by"),
)


def licence_from_text(text: str) -> str | None:
    """The SPDX id a licence text names, or None when its wording is not recognised."""
    return next((spdx for pattern, spdx in WORDINGS if re.search(pattern, text, re.I)), None)


def _recorded(manifest: Mapping[str, Any]) -> str | None:
    """A ``license`` field at the top of the manifest or in one of its step entries."""
    if isinstance(manifest.get("license"), str) and manifest["license"].strip():
        return manifest["license"].strip()
    for entry in (manifest.get("steps") or {}).values():
        if isinstance(entry, Mapping) and isinstance(entry.get("license"), str):
            return entry["license"].strip()
    return None


def _folders(root: Path, manifest: Mapping[str, Any]) -> Iterator[Path]:
    yield root
    for entry in (manifest.get("steps") or {}).values():
        if isinstance(entry, Mapping) and isinstance(entry.get("input"), str):
            yield Path(entry["input"]) if Path(entry["input"]).is_absolute() \
                else root / entry["input"]


def licence_file(root: Path, manifest: Mapping[str, Any]) -> tuple[Path, str] | None:
    """The first licence file of the benchmark or its corpus input whose wording is known."""
    for folder in _folders(Path(root), manifest):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.name.upper().startswith(LICENCE_FILES):
                spdx = licence_from_text(path.read_text(encoding="utf-8", errors="replace"))
                if spdx:
                    return path, spdx
    return None


def resolve_licence(given: str | None, root: Path, manifest: Mapping[str, Any]
                    ) -> tuple[str, str]:
    """``(spdx id, where it came from)``; ``("unknown", why)`` when nothing names one."""
    if given:
        return given, "--license"
    recorded = _recorded(manifest)
    if recorded:
        return recorded, "manifest.json"
    found = licence_file(root, manifest)
    if found:
        return found[1], str(found[0])
    return UNKNOWN, "no --license, no 'license' in manifest.json and no known licence file"
