"""Whether a JSON value fits a JSON schema: the subset irforge's output schemas use.

Pydantic validates an answer against its model, but the schema shown to the decoder says
more (every key required, enums of passage sentences, regex patterns), and a worked example
that breaks it teaches the model an answer the decoder or the checks refuse. Covered: types,
``required``, ``properties``, ``items``, ``minItems``/``maxItems``, ``enum``, ``const``,
``pattern``, ``minLength``/``maxLength``, ``minimum``/``maximum``, ``anyOf``/``oneOf``,
``$ref`` to ``$defs``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_TYPES: Mapping[str, type | tuple[type, ...]] = {
    "object": dict, "array": list, "string": str, "integer": int, "number": (int, float),
    "boolean": bool, "null": type(None)}


def schema_problems(schema: Mapping[str, Any], value: Any) -> list[str]:
    """Every way ``value`` breaks ``schema``, each naming where (``$.triples.union``)."""
    return _check(schema, value, "$", schema.get("$defs", {}))


def _check(node: Any, value: Any, where: str, defs: Mapping[str, Any]) -> list[str]:
    if not isinstance(node, Mapping):
        return []
    if "$ref" in node:
        return _check(defs.get(str(node["$ref"]).rsplit("/", 1)[-1], {}), value, where, defs)
    for key in ("anyOf", "oneOf"):
        if key in node:
            options = [_check(option, value, where, defs) for option in node[key]]
            if all(options):
                best = min(options, key=len)
                return best if len(node[key]) == 1 else [
                    f"{where}: fits none of its {len(node[key])} allowed shapes "
                    f"(nearest: {best[0]})"]
    problems: list[str] = []
    kind = node.get("type")
    if isinstance(kind, str) and kind in _TYPES:
        wanted = _TYPES[kind]
        if not isinstance(value, wanted) or (kind in ("integer", "number")
                                             and isinstance(value, bool)):
            return [f"{where}: expected {kind}, got {type(value).__name__}"]
    if "const" in node and value != node["const"]:
        problems.append(f"{where}: must be {node['const']!r}")
    if "enum" in node and value not in node["enum"]:
        shown = ", ".join(repr(v)[:40] for v in list(node["enum"])[:4])
        problems.append(f"{where}: {str(value)[:60]!r} is not one of the allowed values "
                        f"({shown}{', ...' if len(node['enum']) > 4 else ''})")
    if isinstance(value, str):
        problems += _string(node, value, where)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in node and value < node["minimum"]:
            problems.append(f"{where}: {value} is below the minimum {node['minimum']}")
        if "maximum" in node and value > node["maximum"]:
            problems.append(f"{where}: {value} is above the maximum {node['maximum']}")
    if isinstance(value, list):
        if "minItems" in node and len(value) < node["minItems"]:
            problems.append(f"{where}: {len(value)} item(s), fewer than {node['minItems']}")
        if "maxItems" in node and len(value) > node["maxItems"]:
            problems.append(f"{where}: {len(value)} item(s), more than {node['maxItems']}")
        for index, item in enumerate(value):
            problems += _check(node.get("items", {}), item, f"{where}[{index}]", defs)
    if isinstance(value, dict):
        missing = [key for key in node.get("required", []) if key not in value]
        if missing:
            problems.append(f"{where}: missing required key(s) {missing}")
        for key, sub in node.get("properties", {}).items():
            if key in value:
                problems += _check(sub, value[key], f"{where}.{key}", defs)
    return problems


def _string(node: Mapping[str, Any], value: str, where: str) -> list[str]:
    problems = []
    if "minLength" in node and len(value) < node["minLength"]:
        problems.append(f"{where}: shorter than {node['minLength']} characters")
    if "maxLength" in node and len(value) > node["maxLength"]:
        problems.append(f"{where}: {len(value)} characters, over the limit "
                        f"{node['maxLength']}")
    if "pattern" in node and re.search(node["pattern"], value) is None:
        problems.append(f"{where}: {value[:80]!r} does not match the pattern the decoder "
                        "enforces")
    return problems
