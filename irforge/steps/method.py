"""The Method contract: what every method exports (``irforge.generators.<m>.method``).

A :class:`Method` names its pydantic ``Config`` (the one source of its options: the recipe's
``methods.<name>`` block is this model, and the CLI verb validates its flags with it), its
LLM steps, and a ``build(runner, config, inputs)`` function on the shared
:class:`~irforge.steps.runner.BuildRunner`. :mod:`irforge.methods.registry` finds a
method by name for ``irforge run``, ``irforge build`` and the Python API.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from irforge.steps.runner import BuildRunner

ConfigT = TypeVar("ConfigT", bound="MethodConfig")


class MethodConfig(BaseModel):
    """Options every method shares: its own LLM when it should not use the run's."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    model: str | None = None
    api_base: str | None = None

    def options(self) -> dict[str, Any]:
        """The method's own options (the LLM choice left out), for the manifest."""
        return self.model_dump(mode="json", exclude={"model", "api_base"})


class QueryMethodConfig(MethodConfig):
    """Options of a method that writes queries: the relevance-target depth of its validators.

    ``target_k`` (>= 1; None: ``max(3, ceil(sqrt(N)))`` for a corpus of N passages) is how
    deep a first-stage retriever must rank a kept query's positive. A larger k relaxes the
    filter; it cannot be switched off (docs/generation.md: the bias it leaves).
    """

    target_k: int | None = Field(None, ge=1, description="relevance-target depth (None: "
                                 "scaled to the corpus size)")


def flag_defaults(config: type[MethodConfig]) -> SimpleNamespace:
    """Every Config field's default as a build verb's flag takes it (a list becomes the
    comma-separated text): the verbs' defaults come from here, so they match the recipe's."""
    values = {name: field.get_default(call_default_factory=True)
              for name, field in config.model_fields.items()}
    return SimpleNamespace(**{name: ",".join(str(item) for item in value)
                              if isinstance(value, list) else value
                              for name, value in values.items()})


def validated(config: type[ConfigT], **options: Any) -> ConfigT:
    """The method's Config from a verb's flags: a bad value is a usage error naming the
    flag (``--per-type: Input should be greater than or equal to 1``), exit 2."""
    from irforge.core.errors import IrforgeError

    try:
        return config.model_validate(options)
    except ValidationError as exc:
        problems = [f"--{'-'.join(str(p) for p in error['loc']).replace('_', '-')}: "
                    f"{error['msg']}" for error in exc.errors()]
        raise IrforgeError("; ".join(problems)) from None


@dataclass(frozen=True)
class Inputs:
    """What a build reads: the corpus file (or its documents, given in memory by the Python
    API or the demo) and, for methods built on another, its folder or files."""

    corpus: Path
    source: Path | None = None  # instructions: the intents folder; relevance: the pool file
    files: tuple[Path, ...] = ()  # relevance: more pair or pool files
    docs: tuple[Any, ...] | None = None  # the corpus's documents, when not read from ``corpus``
    pairs: tuple[Any, ...] | None = None  # instructions: query-passage pairs given in memory

    def documents(self, limit: int | None = None) -> list[Any]:
        """The corpus's documents (the first ``limit``): the ones given, else those of the
        corpus file, every row read and validated first (a truncated, non-UTF-8 or duplicated
        row fails before any LLM call)."""
        from irforge.core import beir

        docs = list(self.docs if self.docs is not None else beir.read_corpus(self.corpus))
        return docs if limit is None else docs[:limit]


@dataclass(frozen=True)
class Built:
    """What a build kept (``finish`` checks it), the counts it recorded, and its judge's
    control figures (``judge_controls.json`` entry) when an LLM judge decided what it kept."""

    kept: int
    counts: dict[str, Any]
    judge: Mapping[str, Any] | None = None
    labels: str = ""  # what the judged labels are, for the untrusted message
    report: Any = None  # the generator's own summary (what a verb prints)


Build = Callable[[BuildRunner, Any, Inputs], Built]


@dataclass(frozen=True)
class Method:
    """One method: its name, config model, steps, build function and what it keeps; and,
    where its verb has ``--dry-run``, what a build would send (``estimate``, writes nothing)."""

    name: str
    config: type[MethodConfig]
    steps: tuple[str, ...]
    build: Build
    kept: str  # what finish() counts: "logical queries", "MultiConIR source documents", ...
    estimate: Callable[[BuildRunner, Any, Inputs], Any] | None = None

    def run(self, runner: BuildRunner, config: MethodConfig, inputs: Inputs,
            show: Callable[[Built], Any] | None = None) -> Built:
        """Build with ``config`` on ``runner``, ``show`` what it built (a verb prints it),
        then finish once: budget stop, then empty result, then a judge that failed its
        control items (exit 8), in that order for every method. The one way a method runs:
        ``irforge run``, ``irforge build``/``label``, the demo and the Python API call it."""
        if isinstance(config, QueryMethodConfig):
            runner.target_k = config.target_k
        built = self.build(runner, config, inputs)
        if show is not None:
            show(built)
        runner.finish(built.kept, self.kept)
        if built.judge:
            from irforge.steps.judge_report import raise_if_untrusted

            raise_if_untrusted(built.judge, built.labels, self.name,
                               str(built.judge.get("controls_file", "judge_controls.json")))
        return built
