"""The recipe file: what to build from which documents, with which models, scored how.

A recipe is YAML validated by the models below (unknown keys are errors, with the file, the
key and the fix); paths inside it are relative to the recipe file. The resolved recipe (every
default filled in, paths absolute) is written to ``BENCH/recipe.yaml`` and the manifest, so
``irforge run BENCH/recipe.yaml`` rebuilds the same benchmark.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from irforge.core.errors import FormatError, Problem
from irforge.core.yamlfile import load_yaml
from irforge.generators.instructions import method as instructions
from irforge.generators.intents import method as intents
from irforge.generators.intents.config import TAXONOMY_NAMES
from irforge.generators.logical import method as logical
from irforge.generators.multicon import method as multicon
from irforge.generators.relevance import method as relevance

DEFAULT_RECIPE = Path(__file__).with_name("default.yaml")
METHODS = ("intents", "logical", "multicon", "instructions")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StageModel(_Strict):
    """A stage's own LLM, when it should not use the recipe's."""

    model: str | None = None
    api_base: str | None = None
    # small | capable: overrides the profile derived from the model (docs/llm.md)
    profile: Literal["small", "capable"] | None = None


class CorpusSpec(_Strict):
    input: Path | None = None
    urls: Path | None = None
    queries: Path | None = None
    max_tokens: int = Field(256, ge=16)
    passage_dedup: bool = True

    @model_validator(mode="after")
    def _one_source(self) -> CorpusSpec:
        if not (self.input or self.urls or self.queries):
            raise ValueError("give corpus.input (a folder of documents), corpus.urls or "
                             "corpus.queries")
        return self


# each method's block is the method's own Config (irforge/generators/<name>/method.py): one source
IntentsSpec = intents.Config
LogicalSpec = logical.Config
MulticonSpec = multicon.Config
InstructionsSpec = instructions.Config


class MethodsSpec(_Strict):
    intents: IntentsSpec | None = None
    logical: LogicalSpec | None = None
    multicon: MulticonSpec | None = None
    instructions: InstructionsSpec | None = None

    def chosen(self) -> list[str]:
        return [name for name in METHODS if getattr(self, name) is not None]


class PoolSpec(_Strict):
    retrievers: list[str] = ["bm25", "dense"]
    k: int = Field(10, ge=1)


LabelSpec = relevance.Config


class EvalSpec(_Strict):
    retrievers: list[str] = ["bm25", "dense"]
    metrics: list[str] = ["ndcg@10", "recall@100"]


class Recipe(_Strict):
    """A whole run: corpus -> methods -> pool -> labels -> eval -> report."""

    corpus: CorpusSpec
    model: str | None = None
    api_base: str | None = None
    profile: Literal["small", "capable"] | None = None
    budget_usd: float | None = Field(None, gt=0)
    concurrency: int | None = Field(None, ge=1)
    parallel: bool = True
    methods: MethodsSpec = MethodsSpec(intents=IntentsSpec())
    pool: PoolSpec = PoolSpec()
    label: LabelSpec = LabelSpec()
    eval: EvalSpec = EvalSpec()

    @model_validator(mode="after")
    def _some_method(self) -> Recipe:
        if not self.methods.chosen():
            raise ValueError(f"methods: name at least one of {', '.join(METHODS)}")
        if self.methods.instructions is not None and self.methods.intents is None:
            raise ValueError("methods.instructions builds on intents' query-passage pairs: "
                             "add methods.intents, or remove methods.instructions")
        return self

    def profile_for(self, stage: StageModel | None) -> str | None:
        """The model profile of a stage: its own, else the recipe's, else None (derived)."""
        own = getattr(stage, "profile", None)
        return own or self.profile

    def llm_for(self, stage: StageModel | None) -> tuple[str | None, str | None]:
        """(model, api_base) of a stage: its own, else the recipe's."""
        model = stage.model if stage and stage.model else self.model
        base = stage.api_base if stage and stage.api_base else self.api_base
        return model, base

    def resolved(self) -> dict[str, Any]:
        """Every default filled in, as plain YAML-ready data."""
        return self.model_dump(mode="json", by_alias=True)


def _location(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc if not str(part).startswith("function-"))


def _hint(error: dict[str, Any], data: Any) -> str:
    """A fix for one validation error: the closest known key for a typo, else the rule."""
    if error["type"] == "extra_forbidden":
        *parent, key = error["loc"]
        model = Recipe
        for part in parent:
            field = model.model_fields.get(str(part))
            annotation = getattr(field, "annotation", None)
            candidates = [a for a in getattr(annotation, "__args__", (annotation,))
                          if isinstance(a, type) and issubclass(a, BaseModel)]
            if not candidates:
                break
            model = candidates[0]
        known = [f.alias or name for name, f in model.model_fields.items()]
        close = difflib.get_close_matches(str(key), known, n=1)
        return (f"did you mean '{close[0]}'?" if close else
                f"known keys here: {', '.join(known)}")
    return "see the recipe format in docs/recipe.md (irforge recipe init writes an example)"


def load_recipe(path: Path) -> Recipe:
    """Read and validate a recipe; every problem is reported with the file and the key."""
    path = Path(path)
    if not path.is_file():
        raise FormatError(Problem(path, "recipe file not found",
                                  hint="irforge recipe init RECIPE.yaml writes one to edit"))
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise FormatError(Problem(path, f"not valid YAML: {str(exc).splitlines()[0]}",
                                  line=None if line is None else line + 1)) from None
    if not isinstance(data, dict):
        raise FormatError(Problem(path, "a recipe is a YAML mapping (corpus:, methods:, ...)"))
    _refuse_redacted(path, data)
    try:
        recipe = Recipe.model_validate(data)
    except ValidationError as exc:
        problems = [Problem(path, error["msg"].removeprefix("Value error, "),
                            field=_location(error["loc"]) or None, hint=_hint(error, data))
                    for error in exc.errors()]
        if len(problems) == 1:
            raise FormatError(problems[0]) from None
        raise RecipeError(path, problems) from None
    return _absolute(recipe, path.parent)


def _refuse_redacted(path: Path, data: Any, where: str = "") -> None:
    """A URL whose credentials irforge blanked when it saved the recipe cannot be used."""
    if isinstance(data, dict):
        for key, value in data.items():
            _refuse_redacted(path, value, f"{where}.{key}" if where else str(key))
    elif isinstance(data, str) and "://***@" in data:
        raise FormatError(Problem(
            path, "the credentials in this URL were removed when irforge saved the recipe",
            field=where, hint="pass --recipe with your original recipe file, or drop the "
            "user:password@ part and give the key in IRFORGE_API_KEY"))


class RecipeError(FormatError):
    """Several problems in one recipe file, all listed."""

    def __init__(self, path: Path, problems: list[Problem]) -> None:
        super().__init__(problems[0])
        self.problems = problems
        self.args = (f"{len(problems)} problems in {path}:\n"
                     + "\n".join(f"  - {problem}" for problem in problems),)


def _absolute(recipe: Recipe, base: Path) -> Recipe:
    """Paths in a recipe are relative to the recipe file."""
    corpus = recipe.corpus
    for name in ("input", "urls", "queries"):
        value = getattr(corpus, name)
        if value is not None and not value.is_absolute():
            setattr(corpus, name, (base / value).resolve())
    intents = recipe.methods.intents
    if intents and intents.taxonomy not in TAXONOMY_NAMES:
        taxonomy = Path(intents.taxonomy)
        intents.taxonomy = str(taxonomy if taxonomy.is_absolute() else (base / taxonomy).resolve())
    return recipe


def write_recipe(recipe: Recipe, path: Path) -> Path:
    """The resolved recipe as YAML (what ``irforge run`` re-reads to rebuild)."""
    from irforge.core.redact import redact_data

    # credentials never land in the file (a user:password@ in api_base becomes ***@)
    text = ("# Resolved by irforge: every default filled in. `irforge run` on this file "
            "rebuilds the same benchmark.\n"
            + yaml.safe_dump(redact_data(recipe.resolved()), sort_keys=False))
    path.write_text(text, encoding="utf-8")
    return path
