"""InfoSearch dimensions and their condition values, loaded from YAML (paper 2.1, A.1).

The shipped ``dimensions.yaml`` holds Audience, Keyword, Format, Language, Length and Source;
a user file passed as ``extra`` is merged over it by name, so users add dimensions or values
(or change terms, bounds, markers) without copying the whole file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from irforge.core.errors import FormatError, Problem
from irforge.core.yamlfile import load_yaml

DEFAULT_FILE = "dimensions.yaml"
_BOUND_KEYS = {"min_words", "max_words", "min_sentences", "max_sentences", "min_paragraphs",
               "max_paragraphs"}
_MARKER_KEYS = {"min_users", "code", "manual", "blog", "script"}


@dataclass(frozen=True)
class ConditionValue:
    """One value a dimension can take, with the words that state it and what a document shows."""

    name: str
    description: str
    terms: tuple[str, ...]
    bounds: Mapping[str, int] = field(default_factory=dict)
    markers: Mapping[str, Any] = field(default_factory=dict)
    #: how a person says it after "documents" ("written for experts"), one of ``terms``
    #: within its first words; empty: "that are <name>"
    phrase: str = ""

    @property
    def said(self) -> str:
        """The value as words after "documents": its phrase, else "that are <name>"."""
        return self.phrase or f"that are {self.name.replace('_', ' ')}"


@dataclass(frozen=True)
class RewriteSpec:
    """Which value documents are rewritten from, the values it yields, and the template.

    ``source`` None: a given document's value is not assumed (nothing in its text can show
    it, as for Audience); it is only the seed, rewritten into every target value.
    """

    source: str | None
    targets: tuple[str, ...]
    template: str

    @property
    def seeded(self) -> bool:
        """True when given documents are seeds rewritten into every target value."""
        return self.source is None


@dataclass(frozen=True)
class Dimension:
    """A document-level attribute; ``extracted`` ones (Keyword) get their value per pair."""

    name: str
    description: str
    values: Mapping[str, ConditionValue] = field(default_factory=dict)
    extracted: bool = False
    rewrite: RewriteSpec | None = None

    def value(self, name: str) -> ConditionValue:
        """The named value, or a keyword value built on the fly for extracted dimensions."""
        if self.extracted:
            return ConditionValue(name=name, description=f'involves the term "{name}"',
                                  terms=(name,), phrase=f"that mention {name}")
        try:
            return self.values[name]
        except KeyError:
            known = ", ".join(sorted(self.values))
            raise KeyError(f"dimension {self.name!r} has no value {name!r} (known: {known})") \
                from None


def _default_text() -> str:
    return resources.files(__package__).joinpath(DEFAULT_FILE).read_text(encoding="utf-8")


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Recursive merge of mappings; lists and scalars in ``extra`` replace those in ``base``."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


def _bad(path: Path, where: str, message: str, hint: str | None = None) -> FormatError:
    return FormatError(Problem(path, message, field=where, hint=hint))


def _int_map(path: Path, where: str, raw: Any, allowed: set[str]) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise _bad(path, where, "must be a mapping")
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise _bad(path, where, f"unknown key(s) {unknown}", f"use only {sorted(allowed)}")
    return dict(raw)


def _parse_value(path: Path, where: str, name: str, raw: Any) -> ConditionValue:
    if not isinstance(raw, Mapping):
        raise _bad(path, where, "must be a mapping with description and terms")
    terms = raw.get("terms") or [name.replace("_", " ")]
    if not isinstance(terms, list) or not all(isinstance(t, str) and t.strip() for t in terms):
        raise _bad(path, f"{where}.terms", "must be a list of non-empty strings")
    bounds = _int_map(path, f"{where}.bounds", raw.get("bounds"), _BOUND_KEYS)
    if not all(isinstance(v, int) and v >= 0 for v in bounds.values()):
        raise _bad(path, f"{where}.bounds", "bounds must be non-negative integers")
    markers = _int_map(path, f"{where}.markers", raw.get("markers"), _MARKER_KEYS)
    phrase = raw.get("phrase", "")
    if not isinstance(phrase, str):
        raise _bad(path, f"{where}.phrase", "must be a string (the value after 'documents')")
    return ConditionValue(name=name, description=str(raw.get("description", name)),
                          terms=tuple(t.strip().lower() for t in terms), bounds=bounds,
                          markers=markers, phrase=" ".join(phrase.split()))


def _parse_dimension(path: Path, name: str, raw: Any) -> Dimension:
    where = f"dimensions.{name}"
    if not isinstance(raw, Mapping):
        raise _bad(path, where, "must be a mapping")
    extracted = bool(raw.get("extracted", False))
    raw_values = raw.get("values") or {}
    if not isinstance(raw_values, Mapping):
        raise _bad(path, f"{where}.values", "must be a mapping of value name -> settings")
    if not extracted and len(raw_values) < 2:
        raise _bad(path, f"{where}.values", "a dimension needs at least two values",
                   "add values, or set extracted: true for per-pair values like keywords")
    values = {str(key): _parse_value(path, f"{where}.values.{key}", str(key), item)
              for key, item in raw_values.items()}
    rewrite = None
    if raw.get("rewrite"):
        spec = raw["rewrite"]
        targets = tuple(str(target) for target in spec.get("to") or ())
        source = spec.get("from")
        missing = [v for v in (*([source] if source is not None else []), *targets)
                   if v not in values]
        if missing or not spec.get("template"):
            raise _bad(path, f"{where}.rewrite",
                       f"unknown value(s) {missing}" if missing else "template is missing",
                       "rewrite.from and rewrite.to must name values of this dimension")
        if source is None and len(set(targets)) < 2:
            raise _bad(path, f"{where}.rewrite.to",
                       "without rewrite.from a seed document is rewritten into every value of "
                       "rewrite.to, so it needs at least two",
                       "list two or more values in rewrite.to, or name rewrite.from")
        rewrite = RewriteSpec(source=None if source is None else str(source), targets=targets,
                              template=str(spec["template"]))
    return Dimension(name=name, description=str(raw.get("description", name)), values=values,
                     extracted=extracted, rewrite=rewrite)


def load_dimensions(extra: Path | None = None) -> dict[str, Dimension]:
    """The shipped dimensions, with ``extra`` (a user YAML file) merged over them by name."""
    data = yaml.safe_load(_default_text())
    source = Path(DEFAULT_FILE)
    if extra is not None:
        source = Path(extra)
        try:
            user = load_yaml(source.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise FormatError(Problem(source, f"cannot read dimensions file: {exc}",
                                      hint="pass a YAML file with a top-level 'dimensions:'"
                                      )) from exc
        if not isinstance(user, Mapping) or not isinstance(user.get("dimensions"), Mapping):
            raise _bad(source, "dimensions", "missing top-level 'dimensions:' mapping")
        data = _merge(data, user)
    return {str(name): _parse_dimension(source, str(name), raw)
            for name, raw in data["dimensions"].items()}
