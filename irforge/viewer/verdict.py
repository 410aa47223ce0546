"""The verdict panel of one benchmark folder: can its labels be trusted (the judges' control
figures per kind), what the validators threw away and why, the label distribution, written
vs kept queries (length, form, intent/category) and the systems' spread with 95% intervals."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from irforge.core.errors import IrforgeError
from irforge.core.records import Failure, Query
from irforge.core.trust import read_judges, status_of
from irforge.viewer.extras import json_rows

TEXT_KEYS = ("query", "text", "question", "claim", "instruction_query", "sentence")
POOL_ROWS = 500  # pool rows read for the systems' names (every row names the same systems)
LENGTH_BINS = ((1, 4), (5, 8), (9, 12), (13, 20), (21, None))
_QUESTION = re.compile(r"^(who|what|when|where|which|why|how|is|are|does|do|can|should|"
                       r"could|would|will|did)\b", re.IGNORECASE)
_VALIDATOR = re.compile(r"validator ([\w.\-]+)")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")


def judges(folder: Path) -> list[dict[str, Any]]:
    """Every judge of ``judge_controls.json``: status, model, figures and accuracy per kind of
    control (the deciding step's); an unreadable file is one entry saying so."""
    try:
        entries = read_judges(folder)
    except IrforgeError as exc:
        return [{"name": "judge_controls.json", "status": "unreadable", "model": "",
                 "lines": [str(exc)], "reasons": [], "kinds": []}]
    out = []
    for name, entry in entries.items():
        steps = entry.get("steps") or {}
        step = entry.get("deciding_step") or next(iter(steps), None)
        figures = steps.get(step) or {}
        kinds = [{"kind": kind, "controls": int(row.get("controls", 0)),
                  "correct": int(row.get("correct", 0)),
                  "unanswered": int(row.get("unanswered", 0))}
                 for kind, row in sorted((figures.get("by_kind") or {}).items())]
        out.append({"name": name, "status": status_of(entry), "model": entry.get("model") or "",
                    "demo": bool(entry.get("demo_grade")), "step": step or "",
                    "lines": list(entry.get("lines") or []),
                    "reasons": list(entry.get("reasons") or []), "kinds": kinds,
                    "splits": list(entry.get("qrels_splits") or [])})
    return out


def validator_class(reason: str) -> str:
    """The class of a rejection: the validator it names (``validator grounding: ...``), else
    the reason's head before its first colon (``llm invalid``)."""
    named = _VALIDATOR.search(reason)
    if named:
        return named.group(1).rstrip(":")
    head = reason.split(":", 1)[0].strip()
    if head == "rejected" and ":" in reason:
        head = reason.split(":", 2)[1].strip()
    # the item's own values (quoted text, numbers, a parenthesis) would split one class
    head = _NUMBER.sub("N", _QUOTED.sub("…", head.split(" (", 1)[0])).strip()
    return head[:60] or "unknown"


def _find_text(value: Any) -> str | None:
    if isinstance(value, Mapping):
        for key in TEXT_KEYS:
            if isinstance(value.get(key), str) and value[key].strip():
                return value[key].strip()
        for inner in value.values():
            found = _find_text(inner)
            if found:
                return found
    if isinstance(value, list):
        return next((found for found in map(_find_text, value) if found), None)
    return None


def rejected_query(failure: Failure) -> str | None:
    """The text a step threw away, when it names one: a ``query``-like field of the
    failure's metadata or of its raw JSON output."""
    found = _find_text(dict(failure.metadata or {}))
    if found:
        return found
    raw = (failure.raw_output or "").strip()
    try:
        return _find_text(json.loads(raw)) if raw[:1] in ("[", "{") else None
    except ValueError:
        return None


def rejected_text(failure: Failure) -> str:
    """What the rejected-items view shows: the rejected text, else the raw output (short)."""
    text = rejected_query(failure) or (failure.raw_output or "").strip()
    return text if len(text) <= 400 else text[:399] + "…"


def written_queries(failures: Iterable[Failure]) -> list[tuple[str, Mapping[str, Any]]]:
    """Queries a generator wrote and a validator threw away (not judge or annotation rows)."""
    out = []
    for failure in failures:
        if failure.step.startswith(("relevance", "annotate")):
            continue
        text = rejected_query(failure)
        if text:
            out.append((text, dict(failure.metadata or {})))
    return out


def rejections(failures: Sequence[Failure]) -> list[dict[str, Any]]:
    """Counts per (step, validator class), most first."""
    counts = Counter((f.step, validator_class(f.reason)) for f in failures)
    return [{"step": step, "validator": name, "n": n}
            for (step, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def label_distribution(qrels: Mapping[str, Mapping[str, int]]) -> dict[str, int]:
    """How many judged pairs carry each grade."""
    counts = Counter(int(g) for docs in qrels.values() for g in docs.values())
    return {str(grade): counts[grade] for grade in sorted(counts)}


def query_form(text: str) -> str:
    """``question`` (ends with ? or opens with a question word), ``statement`` (a sentence
    ending in . or !), else ``keywords``."""
    stripped = text.strip()
    if stripped.endswith("?") or _QUESTION.match(stripped):
        return "question"
    if stripped.endswith((".", "!")):
        return "statement"
    return "keywords"


def length_bin(text: str) -> str:
    words = len(text.split())
    for low, high in LENGTH_BINS:
        if high is None or words <= high:
            return f"{low}+ words" if high is None else f"{low}-{high} words"
    return "?"


def _group(meta: Mapping[str, Any]) -> str:
    parts = [str(meta[k]) for k in ("intent", "category") if meta.get(k)]
    if not parts:
        parts = [str(meta[k]) for k in ("dimension", "logical_type", "type") if meta.get(k)][:1]
    return "/".join(parts) or "-"


def shape(kept: Iterable[Query], rejected: Iterable[tuple[str, Mapping[str, Any]]]
          ) -> dict[str, dict[str, dict[str, int]]]:
    """Written (kept + rejected) vs kept, per length bin, form and intent/category."""
    out: dict[str, dict[str, dict[str, int]]] = {"length": {}, "form": {}, "group": {}}
    rows = [(q.text, q.metadata, True) for q in kept] + [(t, m, False) for t, m in rejected]
    for text, meta, was_kept in rows:
        for name, key in (("length", length_bin(text)), ("form", query_form(text)),
                          ("group", _group(meta))):
            cell = out[name].setdefault(key, {"written": 0, "kept": 0})
            cell["written"] += 1
            cell["kept"] += int(was_kept)
    return out


def system_spread(scores: Mapping[str, Mapping[str, float]], names: Sequence[str]
                  ) -> list[dict[str, Any]]:
    """Per system: mean per-query score over every query with a score, and its 95%
    percentile-bootstrap interval (queries resampled)."""
    from irforge.eval.metrics.significance import bootstrap_ci

    out = []
    for name in names:
        values = [per[name] for per in scores.values() if name in per]
        if not values:
            continue
        low, high = bootstrap_ci(values, trials=1000, seed=0)
        out.append({"system": name, "mean": round(sum(values) / len(values), 4),
                    "low": round(low, 4), "high": round(high, 4), "queries": len(values)})
    return out


def pool_systems(folder: Path, manifest: Mapping[str, Any]) -> list[str]:
    """The systems whose top-k made the judging pool (``pool/candidates.jsonl``'s
    ``found_by``, or a manifest step's ``systems``)."""
    names: set[str] = set()
    for entry in (manifest.get("steps") or {}).values():
        if isinstance(entry, Mapping) and isinstance(entry.get("systems"), list):
            names |= {str(s) for s in entry["systems"]}
    path = Path(folder) / "pool" / "candidates.jsonl"
    if path.is_file():
        for row in islice(json_rows(path), POOL_ROWS):
            for found in (row.get("found_by") or {}).values():
                names |= {str(s) for s in found}
    return sorted(names)


def pool_warning(pool: Sequence[str], evaluated: Sequence[str]) -> str:
    """A warning when systems that built the pool are also the ones scored on it (their
    scores are inflated: every passage they found was judged)."""
    def base(name: str) -> str:
        return name.split("-", 1)[0].lower()

    both = sorted({e for e in evaluated for p in pool if e == p or base(e) == base(p)})
    if not both:
        return ""
    return (f"the judging pool came from {', '.join(pool)}; {', '.join(both)} "
            f"{'is' if len(both) == 1 else 'are'} also evaluated here, so "
            f"{'its' if len(both) == 1 else 'their'} scores are inflated (every passage "
            f"{'it' if len(both) == 1 else 'they'} found was judged): compare with a system "
            "outside the pool")


def flagged(folder: Path) -> list[dict[str, Any]]:
    """Generated positives the relevance ensemble did not give the top grade
    (``relevance/flagged.jsonl``)."""
    from irforge.core.layouts.relevance import LAYOUT

    path = LAYOUT.path(Path(folder), "flagged")
    if not path.is_file():
        return []
    return [{"query": str(row["query_id"]), "doc": str(row.get("doc_id", "")),
             "grade": row.get("graded"), "top": row.get("top_label")}
            for row in json_rows(path) if row.get("query_id") is not None]
