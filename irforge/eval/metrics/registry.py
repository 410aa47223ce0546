"""Metric names parsed once at the edge ("ndcg@10", "P@5", "ndcg_cut_10", "wise") into values.

A :class:`Measure` is what the rest of the code passes around. The one registry holds two
kinds of measure: ``"ranked"`` ones are pure functions of :class:`~.ranking.RankedLabels`
(the trec measures); ``"paper"`` ones are the papers' measures, computed by the eval runner
from the files they list in ``needs`` (``irforge.eval.metrics.papers``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from irforge.core.errors import IrforgeError
from irforge.eval.metrics.ranking import RankedLabels

MeasureFunction = Callable[[RankedLabels, "int | None"], np.ndarray]
PaperFunction = Callable[[Any, "int | None"], dict[str, float]]


class UnknownMetricError(IrforgeError, ValueError):
    """A metric name that the registry does not know or cannot parse."""


@dataclass(frozen=True)
class MetricSpec:
    """A registered measure: its function, whether it takes a cutoff, what it means."""

    name: str
    function: MeasureFunction | PaperFunction
    cutoff: str  # "required", "optional" or "none"
    description: str
    trec_name: str | None = None  # pytrec_eval measure without a cutoff
    trec_cut: str | None = None  # pytrec_eval measure with "{k}" for the cutoff
    kind: str = "ranked"  # "ranked" (RankedLabels) or "paper" (files of the bench folder)
    needs: tuple[str, ...] = ()  # files (relative to the bench folder) a paper measure reads
    default_cutoff: int | None = None  # the cutoff a paper measure uses when none is given
    source: str = "trec_eval"  # where the formula comes from (docs/eval.md)


@dataclass(frozen=True, order=True)
class Measure:
    """A parsed metric: canonical name plus cutoff; ``str()`` gives back ``name@k``."""

    name: str
    cutoff: int | None = None

    def __str__(self) -> str:
        return self.name if self.cutoff is None else f"{self.name}@{self.cutoff}"

    @property
    def spec(self) -> MetricSpec:
        return REGISTRY[self.name]

    def compute(self, ranked: RankedLabels) -> np.ndarray:
        """Per-query values for one block of ranked queries (``"ranked"`` measures)."""
        if self.spec.kind != "ranked":
            raise UnknownMetricError(
                f"{self} is a paper measure: it needs the benchmark folder's files "
                f"({', '.join(self.spec.needs) or 'the run'}); use irforge eval BENCH "
                f"--metric {self} or irforge.eval.runner.evaluate_benchmark")
        return self.spec.function(ranked, self.cutoff)  # type: ignore[call-arg,arg-type]

    @property
    def is_paper(self) -> bool:
        return self.spec.kind == "paper"

    @property
    def trec_name(self) -> str | None:
        """The equivalent pytrec_eval measure name, when trec_eval has one."""
        if self.cutoff is None:
            return self.spec.trec_name
        pattern = self.spec.trec_cut
        return None if pattern is None else pattern.format(k=self.cutoff)


REGISTRY: dict[str, MetricSpec] = {}
ALIASES: dict[str, str] = {}
_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z_\-]*?)\s*(?:(?:@\s*|_|\.)(\d+))?\s*$")
"""``name``, ``name@k``, trec_eval's output spelling ``name_k`` (``ndcg_cut_10``, ``P_5``) or
pytrec_eval's measure spelling ``name.k`` (``ndcg_cut.10``, ``P.5``)."""
_CUTOFF_LIST = re.compile(r"^\s*([A-Za-z_][A-Za-z_\-]*)\.(\d+(?:\s*,\s*\d+)+)\s*$")


def register(spec: MetricSpec, *aliases: str) -> MetricSpec:
    """Add a measure under its name and aliases (case-insensitive)."""
    REGISTRY[spec.name] = spec
    for alias in (spec.name, *aliases):
        ALIASES[alias.lower()] = spec.name
    return spec


def parse_metric(text: str | Measure) -> Measure:
    """Parse ``"ndcg@10"``, ``"P@5"``, ``"recall@100"``, ``"map"``... into a :class:`Measure`."""
    if isinstance(text, Measure):
        return text
    match = _NAME.match(str(text))
    known = ", ".join(sorted(REGISTRY))
    if not match:
        raise UnknownMetricError(f"cannot parse metric {text!r}: write NAME or NAME@K "
                                 f"(known names: {known})")
    name = ALIASES.get(match.group(1).lower().rstrip("_"))
    if name is None:
        raise UnknownMetricError(f"unknown metric {match.group(1)!r} in {text!r} "
                                 f"(known names: {known})")
    cutoff = int(match.group(2)) if match.group(2) is not None else None
    spec = REGISTRY[name]
    if cutoff is None:
        cutoff = spec.default_cutoff  # "wise" is "wise@20": the name says what was measured
    if spec.cutoff == "required" and cutoff is None:
        raise UnknownMetricError(f"metric {text!r} needs a cutoff: write {name}@K, "
                                 f"for example {name}@10")
    if spec.cutoff == "none" and cutoff is not None:
        raise UnknownMetricError(f"metric {name!r} takes no cutoff; write {name!r}")
    if cutoff is not None and cutoff < 1:
        raise UnknownMetricError(f"cutoff in metric {text!r} must be a positive integer")
    return Measure(name=name, cutoff=cutoff)


def expand_names(texts: Iterable[str | Measure]) -> list[str | Measure]:
    """Split pytrec_eval's cutoff lists: ``"P.5,10"`` -> ``"P.5"``, ``"P.10"``."""
    if isinstance(texts, str | Measure):
        texts = [texts]
    out: list[str | Measure] = []
    for text in texts:
        match = _CUTOFF_LIST.match(text) if isinstance(text, str) else None
        if match:
            out += [f"{match.group(1)}.{k.strip()}" for k in match.group(2).split(",")]
        else:
            out.append(text)
    return out


def labelled_metrics(texts: Iterable[str | Measure]) -> dict[str, Measure]:
    """``{name as asked: Measure}`` in order: results are keyed the way the caller spelled
    them (``"ndcg_cut.10"`` stays ``"ndcg_cut.10"``); a :class:`Measure` is keyed ``name@k``."""
    labels = {(text.strip() if isinstance(text, str) else str(text)): parse_metric(text)
              for text in expand_names(texts)}
    if not labels:
        raise UnknownMetricError("no metric given; ask for at least one, e.g. 'ndcg@10'")
    return labels


def parse_metrics(texts: Iterable[str | Measure]) -> list[Measure]:
    """Parse several names, keeping order and dropping duplicates; at least one is needed."""
    return list(dict.fromkeys(labelled_metrics(texts).values()))
