"""Search intents and category taxonomies as YAML: built-ins shipped, user files merged on top.

An intent says how queries are generated (two templates, attribute pools, a task prefix) and
what "relevant" means when labeling (DisastIR 3.2, 3.4, appendix B and C). A taxonomy is a list
of categories; tasks are intents x categories.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from irforge.core.errors import FormatError, IrforgeError, Problem
from irforge.core.yamlfile import load_yaml

HERE = Path(__file__).parent
BUILTIN_INTENTS = HERE / "builtin_intents.yaml"
DISASTIR_TAXONOMY = HERE / "disastir_taxonomy.yaml"
STRATEGY_NAMES = ("zero_shot", "cot", "multi_dim")
ATTRIBUTE_NAMES = ("query_length", "clarity", "passage_length", "difficulty")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RelevanceSpec(_Strict):
    """What relevance means for one intent, and which labeling strategies apply."""

    query_name: str
    passage_name: str
    goal: str
    presence_question: str
    scale: list[str] = Field(min_length=2)
    criteria: dict[str, str] = Field(default_factory=dict)
    strategies: list[str] = Field(default_factory=lambda: list(STRATEGY_NAMES), min_length=1)
    cot_criteria: list[str] = Field(default_factory=lambda: ["Exactness", "Coverage"])
    zero_shot_template: str = "relevance.zero_shot"

    @property
    def top_label(self) -> int:
        return len(self.scale) - 1

    @field_validator("strategies")
    @classmethod
    def _known_strategies(cls, value: list[str]) -> list[str]:
        unknown = [name for name in value if name not in STRATEGY_NAMES]
        if unknown:
            raise ValueError(f"unknown strategies {unknown}; known: {list(STRATEGY_NAMES)}")
        return value

    @model_validator(mode="after")
    def _strategies_fit(self) -> RelevanceSpec:
        if "cot" in self.strategies:
            if len(self.scale) != 4:
                raise ValueError("the cot strategy needs a 0-3 scale (4 labels): phase one "
                                 "splits it into 0/1 and 2/3; drop cot for other scales")
            missing = [name for name in self.cot_criteria if name not in self.criteria]
            if missing:
                raise ValueError(f"cot_criteria {missing} are not defined in criteria")
        if "multi_dim" in self.strategies and not self.criteria:
            raise ValueError("the multi_dim strategy needs at least one entry in criteria")
        return self


class IntentSpec(_Strict):
    """One search intent: prompts for the two generation stages, attribute pools, prefix."""

    name: str = ""
    description: str
    task_prefix: str
    needs_template: str = "intents.generic_needs"
    query_template: str = "intents.generic_query"
    query_name: str = "query"
    passage_name: str = "passage"
    generates_passage: bool = True
    # the declared query forms this intent asks for (irforge/prompts/forms.yaml); each
    # planned query is asked for one whose word bounds meet its sampled length
    forms: list[str] = Field(default_factory=list)
    attributes: dict[str, list[str]]
    relevance: RelevanceSpec

    @field_validator("forms")
    @classmethod
    def _declared_forms(cls, value: list[str]) -> list[str]:
        from irforge.prompts.forms import query_forms

        unknown = [name for name in value if name not in query_forms()]
        if unknown:
            raise ValueError(f"unknown query form(s) {unknown}; declared forms: "
                             f"{sorted(query_forms())}")
        return value

    @field_validator("attributes")
    @classmethod
    def _all_attributes(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        missing = [name for name in ATTRIBUTE_NAMES if not value.get(name)]
        if missing:
            raise ValueError(f"each of {list(ATTRIBUTE_NAMES)} needs a non-empty list of values; "
                             f"missing or empty: {missing}")
        return value


class Category(_Strict):
    """One category of a user taxonomy (for DisastIR, a general disaster event type)."""

    name: str = Field(min_length=1)
    short: str = ""
    description: str = ""
    keywords: list[str] = Field(default_factory=list)

    @property
    def key(self) -> str:
        """Short id used in query ids and task names."""
        raw = self.short or self.name
        return "".join(ch for ch in raw if ch.isalnum()) or "cat"


class Taxonomy(_Strict):
    """A named list of categories."""

    name: str = "taxonomy"
    categories: list[Category] = Field(min_length=1)


def _read_yaml(path: Path) -> Any:
    import yaml

    path = Path(path)
    if not path.is_file():
        raise FormatError(Problem(path, "file not found", hint="check the path"))
    try:
        return load_yaml(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = None if mark is None else mark.line + 1
        raise FormatError(Problem(path, f"not valid YAML: {exc}", line=line,
                                  hint="fix the YAML syntax")) from exc


def _problem_from(path: Path, exc: ValidationError, prefix: str = "") -> FormatError:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in (prefix, *first["loc"]) if part != "")
    return FormatError(Problem(path, first["msg"], field=where or None,
                               hint="see docs/intents.md for the file format"))


def load_intents(extra: Path | None = None) -> dict[str, IntentSpec]:
    """The built-in intents, updated by a user file mapping names to intent definitions."""
    intents = _parse_intents(BUILTIN_INTENTS)
    if extra is not None:
        intents.update(_parse_intents(Path(extra)))
    return intents


def _parse_intents(path: Path) -> dict[str, IntentSpec]:
    data = _read_yaml(path)
    if not isinstance(data, Mapping) or not data:
        raise FormatError(Problem(path, "expected a mapping of intent name -> definition",
                                  hint="see docs/intents.md"))
    out: dict[str, IntentSpec] = {}
    for name, body in data.items():
        if not isinstance(body, Mapping):
            raise FormatError(Problem(path, "an intent definition must be a mapping",
                                      field=str(name)))
        try:
            out[str(name)] = IntentSpec(**{**body, "name": str(name)})
        except ValidationError as exc:
            raise _problem_from(path, exc, str(name)) from exc
    return out


def select_intents(intents: Mapping[str, IntentSpec], names: list[str]) -> list[IntentSpec]:
    """The intents named, in the given order; unknown names are an error listing known ones."""
    unknown = [name for name in names if name not in intents]
    if unknown:
        raise IrforgeError(f"unknown intent(s) {unknown}; known: {sorted(intents)} "
                           "(add new ones with --intents-file)")
    if not names:
        raise IrforgeError("name at least one intent (for example --intents QA,FC)")
    return [intents[name] for name in names]


# taxonomies shipped by name (``--taxonomy disastir``)
NAMED_TAXONOMIES: dict[str, Path] = {"disastir": DISASTIR_TAXONOMY}
DERIVED = "derived"  # the model's categories with a capable model, else term clusters
LEXICAL = "lexical"  # term clusters whatever the model
#: every ``--taxonomy`` value that is not a file path
TAXONOMY_NAMES = (DERIVED, LEXICAL, *NAMED_TAXONOMIES)


def load_taxonomy(path: Path | str | None = None) -> Taxonomy:
    """A taxonomy file, or a shipped one by name (``disastir``; also the default here)."""
    if path is None or str(path) in NAMED_TAXONOMIES:
        path = NAMED_TAXONOMIES[str(path or "disastir")]
    path = Path(path)
    data = _read_yaml(path)
    if isinstance(data, list):
        data = {"categories": data}
    if not isinstance(data, Mapping):
        raise FormatError(Problem(path, "expected a mapping with a 'categories' list"))
    try:
        taxonomy = Taxonomy(**data)
    except ValidationError as exc:
        raise _problem_from(path, exc) from exc
    keys = [category.key for category in taxonomy.categories]
    duplicated = sorted({key for key in keys if keys.count(key) > 1})
    if duplicated:
        raise FormatError(Problem(path, f"categories share the short id(s) {duplicated}",
                                  field="categories", hint="give each category a unique 'short'"))
    return taxonomy
