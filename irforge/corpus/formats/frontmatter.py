"""Front matter of static-site pages: a YAML (``---``) or TOML (``+++``) block at the top.

The block is parsed with a real parser (PyYAML's safe loader, ``tomllib``) into the document's
metadata and is never part of its text. A block that does not parse is still cut from the
text, and the parse error becomes a warning on the document row.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_YAML_BLOCK = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)",
                         re.DOTALL | re.MULTILINE)
_TOML_BLOCK = re.compile(r"\A(?:\ufeff)?\+\+\+[ \t]*\r?\n(.*?)^\+\+\+[ \t]*(?:\r?\n|\Z)",
                         re.DOTALL | re.MULTILINE)
REDIRECT_KEYS = ("redirect", "redirect_to", "redirect_url", "redirect_uri", "redirectto")
MAX_VALUE_CHARS = 500  # longer front-matter values are cut in passage metadata


@dataclass(frozen=True)
class FrontMatter:
    """The parsed block (``data``), the text after it (``body``) and a parse warning or ''."""

    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    present: bool = False
    warning: str = ""

    @property
    def title(self) -> str:
        value = self.data.get("title")
        return " ".join(str(value).split()) if isinstance(value, str | int | float) else ""

    @property
    def redirect(self) -> str:
        """Where a redirect page sends readers ('' when the page is not a redirect)."""
        for key in REDIRECT_KEYS:
            value = self.data.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        layout = self.data.get("layout")
        return "(layout: redirect)" if str(layout).lower() == "redirect" else ""


def _json_safe(value: Any) -> Any:
    """Dates and other YAML scalars as JSON values (dates become ISO strings)."""
    return json.loads(json.dumps(value, default=str))


def split_front_matter(text: str) -> FrontMatter:
    """The front matter of ``text`` (if any) parsed, and the text after it."""
    for pattern, kind in ((_YAML_BLOCK, "YAML"), (_TOML_BLOCK, "TOML")):
        match = pattern.match(text)
        if not match:
            continue
        body = text[match.end():]
        try:
            data = _parse(match.group(1), kind)
        except ValueError as exc:
            return FrontMatter({}, body, True,
                               f"front matter is not valid {kind} ({str(exc)[:200]}); cut "
                               "from the text, its fields ignored")
        return FrontMatter(data, body, True)
    return FrontMatter({}, text, False)


def _parse(block: str, kind: str) -> dict[str, Any]:
    if kind == "TOML":
        try:
            return _json_safe(tomllib.loads(block))
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(str(exc)) from exc
    import yaml

    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc).replace("\n", " ")) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"a {type(data).__name__}, not a mapping of fields")
    return _json_safe({str(key): value for key, value in data.items()})


def passage_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The front-matter fields a passage keeps in its metadata: scalars and lists of scalars,
    long strings cut (nested tables are left in the extract log)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, str):
            out[key] = value[:MAX_VALUE_CHARS]
        elif isinstance(value, bool | int | float):
            out[key] = value
        elif isinstance(value, list) and all(isinstance(v, str | int | float | bool)
                                             for v in value):
            out[key] = [v[:MAX_VALUE_CHARS] if isinstance(v, str) else v for v in value[:50]]
    return out
