"""The dataset card (README.md) of a Hugging Face export, written from the manifest.

It states what a reader needs to trust the data: the source corpus and its licence, the
models and prompt hashes of each stage, the recipe, the yield, agreement with people, the
cost and the intended use. Facts missing from the manifest are said to be missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from irforge.export.source import ExportSource

INTENDED_USE = (
    "Evaluating retrieval systems (retrievers, rerankers) on the queries and relevance "
    "labels below. Labels were produced by language models and, where stated, checked by "
    "people: treat scores as estimates, report the split and the version of this card, and "
    "do not train on the test split of a benchmark you evaluate on.")


def llm_entries(entry: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every LLM engine record (a dict with ``model`` and ``prompts``) inside a step entry."""
    if isinstance(entry, Mapping):
        if "model" in entry and "prompts" in entry:
            yield path, entry
        for key, value in entry.items():
            if isinstance(value, Mapping):
                yield from llm_entries(value, f"{path}.{key}" if path else str(key))


def _cost(steps: Mapping[str, Any]) -> float:
    return round(sum(float(e.get("cost_usd") or 0.0) for step in steps.values()
                     for _, e in llm_entries(step)), 6)


def _sources(steps: Mapping[str, Any]) -> list[str]:
    return [f"{name}: {entry['source']}" for name, entry in steps.items()
            if isinstance(entry, Mapping) and isinstance(entry.get("source"), str)]


def _yield_rows(steps: Mapping[str, Any]) -> list[tuple[str, Any, Any, str]]:
    rows = []
    for entry in steps.values():
        for row in (entry.get("yield") or []) if isinstance(entry, Mapping) else []:
            rejected = row.get("rejected") or {}
            top = ", ".join(f"{reason} x{count}" for reason, count in list(rejected.items())[:3])
            rows.append((str(row.get("step")), row.get("attempted"), row.get("accepted"),
                         top or "-"))
    return rows


def _agreement(source: ExportSource) -> list[str]:
    lines = []
    for path in sorted((source.bench.root / "audits").glob("agreement_*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        for row in data.get("rows", []):
            if row.get("stratum") in (None, "all", "overall"):
                lines.append(f"- {data.get('task')}: {row.get('rater')} vs people, Cohen's "
                             f"kappa {row.get('kappa')} on {row.get('n')} items "
                             f"(95% CI {row.get('low')} to {row.get('high')})")
    return lines


def card_text(source: ExportSource, license_id: str, pretty_name: str) -> str:
    """The Markdown body of the card (the YAML header is added by the exporter)."""
    steps = source.manifest.get("steps") or {}
    counts = source.counts()
    lines = [f"# {pretty_name}", "",
             f"An information-retrieval benchmark built with irforge "
             f"{source.manifest.get('irforge_version', '?')}: {counts['docs']} passages, "
             f"{counts['queries']} queries, qrels splits "
             f"{', '.join(f'{s} ({len(r)})' for s, r in source.qrels.items())}.", "",
             "## Source corpus and licence", ""]
    lines += [f"- {line}" for line in _sources(steps)] or [
        "- source: not recorded in manifest.json"]
    lines += [f"- licence: {license_id}", ""]
    lines += ["## Models and prompts per stage", "",
              "| stage | model | prompt | hash |", "|---|---|---|---|"]
    found = False
    for name, step in steps.items():
        for where, entry in llm_entries(step):
            stage = f"{name}.{where}" if where else name
            for prompt, digest in sorted(dict(entry.get("prompts") or {}).items()):
                lines.append(f"| {stage} | {entry.get('model')} | {prompt} | {digest} |")
                found = True
    if not found:
        lines.append("| - | no LLM stage recorded | - | - |")
    lines += ["", "## Recipe", ""]
    for name, step in steps.items():
        if isinstance(step, Mapping):
            method = step.get("method") or step.get("recipe") or ""
            settings = step.get("config") or step.get("settings") or step.get("params") or {}
            text = json.dumps(settings, sort_keys=True, default=str)[:400] if settings else ""
            lines.append(f"- `{name}`" + (f": {method}" if method else "")
                         + (f" settings `{text}`" if text else ""))
    lines += ["", "## Yield", ""]
    rows = _yield_rows(steps)
    if rows:
        lines += ["| step | attempted | accepted | rejected (top reasons) |", "|---|---:|---:|---|"]
        lines += [f"| {s} | {a} | {c} | {r} |" for s, a, c, r in rows]
    else:
        lines.append("No yield table recorded in manifest.json.")
    lines += ["", "## Agreement with people", ""]
    lines += _agreement(source) or ["No agreement audit found (run `irforge audit agreement`)."]
    lines += ["", "## Cost", "", f"LLM cost recorded in the manifest: ${_cost(steps):.4f}", "",
              "## Intended use", "", INTENDED_USE, "",
              "## Files", "",
              "Configs `corpus`, `queries` and `default` (qrels) follow the layout of MTEB's "
              "retrieval datasets; `metadata` columns are JSON strings holding each method's "
              "fields (conditions, logical type, intent...).", ""]
    return "\n".join(lines)
