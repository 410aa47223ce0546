"""Worked examples, demonstrations and sample values of every prompt, harvested as data.

Sources, so a new template or demonstration is covered without code:
- every prompt template (shipped and the user's prompt folder): the ``example`` inputs, JSON
  values written in the prompt text, ``Label: value`` lines and ``- item`` lines that hold no
  template markup (the prompt's worked examples);
- code-held demonstrations: the string literals of the modules in DEMONSTRATION_MODULES
  (read with ``ast``, never imported, so the check layer stays below the generators) and the
  ``example``/``examples`` values of the YAML files in DEMONSTRATION_YAML.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent
#: modules (globs under irforge/) whose string literals are few-shot demonstrations
DEMONSTRATION_MODULES = ("generators/**/demos.py", "generators/multicon/domains.py")
#: YAML files (globs under irforge/) whose example values are shown to models
DEMONSTRATION_YAML = ("generators/**/*.yaml", "prompts/forms.yaml")
_MARKUP = ("{{", "{%", "{#")
_LABEL_LINE = re.compile(r"^\s*(?:-\s+)?(?:[A-Z][A-Za-z ]{0,24}:\s+)?(.+?)\s*$")
_JSON = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]")


@dataclass(frozen=True)
class Demonstration:
    """One example text and where it comes from (``template intents.fc_needs``...)."""

    text: str
    origin: str


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _prompt_examples(text: str) -> Iterator[str]:
    """Worked examples inside a prompt text: JSON values and labelled or listed lines
    without template markup."""
    for line in text.splitlines():
        if any(mark in line for mark in _MARKUP) or not line.strip():
            continue
        for match in _JSON.finditer(line):
            try:
                yield from _strings(json.loads(match.group()))
            except ValueError:
                continue
        stripped = line.strip()
        labelled = re.match(r"^[A-Z][A-Za-z ]{0,24}:\s+\S", stripped)
        if labelled or stripped.startswith("- "):
            body = _LABEL_LINE.match(stripped)
            if body and not body.group(1).startswith(("{", "[")):
                yield body.group(1)


def _load_yaml(path: Path) -> Any:
    import yaml

    from irforge.core.errors import FormatError, Problem

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise FormatError(Problem(path, f"not valid YAML: {exc}",
                                  hint="fix the file (its examples are harvested as echoes)")
                          ) from exc


def template_demonstrations(prompts_dir: Path | None = None) -> list[Demonstration]:
    """Examples of every prompt template (shipped and overridden), read as YAML data."""
    from irforge.prompts.registry import template_paths

    out: list[Demonstration] = []
    for name, path in template_paths(prompts_dir).items():
        data = _load_yaml(path)
        if not isinstance(data, dict):
            continue
        origin = f"template {name}"
        out += [Demonstration(text, origin) for text in _strings(data.get("example") or {})]
        for part in (data.get("system"), data.get("user")):
            if isinstance(part, str):
                out += [Demonstration(text, origin) for text in _prompt_examples(part)]
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant):
            found.add(id(body[0].value))
    return found


def module_demonstrations(path: Path) -> list[Demonstration]:
    """String literals of a demonstration module (docstrings left out); adjacent literals
    are joined by the parser, so a passage split over lines is one text."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    origin = f"demonstrations {path.relative_to(PACKAGE).as_posix()}"
    return [Demonstration(node.value, origin) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in skip and len(node.value.split()) >= 2]


def yaml_demonstrations(path: Path) -> list[Demonstration]:
    """``example`` and ``examples`` values anywhere in a YAML file."""
    data = _load_yaml(path)
    origin = f"demonstrations {path.relative_to(PACKAGE).as_posix()}"
    out: list[Demonstration] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if str(key).lower() in ("example", "examples"):
                    out.extend(Demonstration(t, origin) for t in _strings(item))
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    return out


@lru_cache(maxsize=8)
def _code_demonstrations() -> tuple[Demonstration, ...]:
    out: list[Demonstration] = []
    for pattern in DEMONSTRATION_MODULES:
        for path in sorted(PACKAGE.glob(pattern)):
            out += module_demonstrations(path)
    for pattern in DEMONSTRATION_YAML:
        for path in sorted(PACKAGE.glob(pattern)):
            out += yaml_demonstrations(path)
    return tuple(out)


@lru_cache(maxsize=8)
def _harvest(prompts_dir: str | None) -> tuple[Demonstration, ...]:
    folder = Path(prompts_dir) if prompts_dir else None
    texts = [*template_demonstrations(folder), *_code_demonstrations()]
    seen: set[str] = set()
    out = []
    for demo in texts:
        key = " ".join(demo.text.lower().split())
        if key and key not in seen and len(key.split()) >= 2:
            seen.add(key)
            out.append(demo)
    return tuple(out)


def harvest(prompts_dir: Path | None = None) -> tuple[Demonstration, ...]:
    """Every demonstration text (deduplicated), from templates, user prompts and code."""
    from irforge.prompts.registry import override_dir

    folder = override_dir(prompts_dir)
    return _harvest(str(folder) if folder else None)
