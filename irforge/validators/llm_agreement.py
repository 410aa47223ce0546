"""LLM-vs-human agreement per stratum, per prompt and for the prompt ensemble.

DisastIR (Section 3.6) averages the scores of three prompts; Section 4.2 then binarizes
(relevant when score > 0) and reports Cohen's kappa against human labels per search intent.
This module pairs the LLM and human judgments of a benchmark folder and does the same for
every stratum (intent, query type, any metadata key), every prompt and the ensemble.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from irforge.core.records import Judgment, Query
from irforge.validators.adjudication import majority_label
from irforge.validators.bootstrap import bootstrap_ci
from irforge.validators.statistics import KappaWeights, cohen_kappa, percent_agreement

ENSEMBLE = "ensemble"
ALL = "all"
DEFAULT_STRATA = ("intent", "type")


@dataclass(frozen=True)
class LabeledPair:
    """One judged item with its adjudicated human label and every LLM prompt's label."""

    query_id: str
    doc_id: str
    human: float
    llm: Mapping[str, float]
    strata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AgreementRow:
    """Agreement of one LLM rater (a prompt or the ensemble) with people on one stratum."""

    stratum: str
    value: str
    rater: str
    n: int
    kappa: float
    low: float
    high: float
    agreement: float

    def as_dict(self) -> dict[str, Any]:
        return {"stratum": self.stratum, "value": self.value, "rater": self.rater, "n": self.n,
                "kappa": self.kappa, "low": self.low, "high": self.high,
                "agreement": self.agreement}


def _is_ensemble(judgment: Judgment) -> bool:
    return bool(judgment.metadata.get("ensemble")) or (judgment.prompt_id or "").endswith(ENSEMBLE)


def _stratum_value(key: str, judgment_meta: Mapping[str, Any],
                   query_meta: Mapping[str, Any]) -> str | None:
    value = judgment_meta.get(key, query_meta.get(key))
    return None if value is None or value == "" else str(value)


def pair_judgments(judgments: Iterable[Judgment], queries: Iterable[Query] = (),
                   task: str = "relevance", strata: Sequence[str] = DEFAULT_STRATA,
                   tie_break: str = "median") -> list[LabeledPair]:
    """Pair human and LLM labels of the same (query, doc); people adjudicated by majority.

    The ensemble label is the explicit ensemble judgment when one exists (prompt id ending in
    ``ensemble`` or ``metadata.ensemble``), else the mean over prompts when there are two or more.
    A later LLM label from the same prompt replaces an earlier one (re-runs).
    """
    query_meta = {query.query_id: query.metadata for query in queries}
    humans: dict[tuple[str, str], list[float]] = defaultdict(list)
    llms: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    metas: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)
    for judgment in judgments:
        if judgment.task != task:
            continue
        key = (judgment.query_id, judgment.doc_id)
        metas[key].update(judgment.metadata)
        if judgment.source == "human":
            humans[key].append(float(judgment.label))
        elif _is_ensemble(judgment):
            llms[key][ENSEMBLE] = float(judgment.label)
        else:
            llms[key][judgment.prompt_id or judgment.model or "llm"] = float(judgment.label)
    pairs = []
    for key in sorted(humans):
        labels = dict(llms.get(key, {}))
        if not labels:
            continue
        prompts = [value for name, value in labels.items() if name != ENSEMBLE]
        if ENSEMBLE not in labels and len(prompts) >= 2:
            labels[ENSEMBLE] = float(np.mean(prompts))
        values = {name: _stratum_value(name, metas[key], query_meta.get(key[0], {}))
                  for name in strata}
        pairs.append(LabeledPair(key[0], key[1], majority_label(humans[key], tie_break), labels,
                                 {name: value for name, value in values.items() if value}))
    return pairs


def to_category(label: float, threshold: float | None) -> int:
    """Binarize (label > threshold) as in DisastIR 4.2, or round a graded label when None."""
    if threshold is None:
        return int(np.floor(label + 0.5))
    return int(label > threshold)


def _row(stratum: str, value: str, rater: str, pairs: Sequence[LabeledPair],
         threshold: float | None, weights: KappaWeights, n_resamples: int,
         seed: int) -> AgreementRow:
    human = np.asarray([to_category(pair.human, threshold) for pair in pairs])
    llm = np.asarray([to_category(pair.llm[rater], threshold) for pair in pairs])

    def kappa(a: np.ndarray, b: np.ndarray) -> float:
        return cohen_kappa(a, b, weights=weights)

    estimate = bootstrap_ci(kappa, human, llm, n_resamples=n_resamples, seed=seed)
    return AgreementRow(stratum, value, rater, len(pairs), estimate.value, estimate.low,
                        estimate.high, percent_agreement(human, llm))


def agreement_table(pairs: Sequence[LabeledPair], strata: Sequence[str] = DEFAULT_STRATA,
                    threshold: float | None = 0.0, weights: KappaWeights = None,
                    n_resamples: int = 1000, seed: int = 0) -> list[AgreementRow]:
    """Cohen's kappa (with a bootstrap CI) per stratum value and per LLM rater.

    ``threshold=0`` reproduces DisastIR 4.2 (relevant when score > 0); ``None`` compares the
    graded labels (ensemble means rounded half up), usually with ``weights="quadratic"``.
    """
    raters = sorted({name for pair in pairs for name in pair.llm},
                    key=lambda name: (name == ENSEMBLE, name))
    groups: list[tuple[str, str, list[LabeledPair]]] = [(ALL, ALL, list(pairs))]
    for stratum in strata:
        values = sorted({pair.strata[stratum] for pair in pairs if stratum in pair.strata})
        groups.extend((stratum, value, [p for p in pairs if p.strata.get(stratum) == value])
                      for value in values)
    rows = []
    for stratum, value, members in groups:
        for rater in raters:
            rated = [pair for pair in members if rater in pair.llm]
            if rated:
                rows.append(_row(stratum, value, rater, rated, threshold, weights,
                                 n_resamples, seed))
    return rows


def human_reliability(judgments: Iterable[Judgment], task: str = "relevance") -> dict[str, Any]:
    """Agreement among people: Krippendorff's alpha (nominal, ordinal, interval; missing
    ratings allowed) and Fleiss' kappa over the items every annotator labeled."""
    from irforge.validators.statistics import fleiss_kappa, krippendorff_alpha, ratings_to_counts

    latest: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for judgment in judgments:
        if judgment.source == "human" and judgment.task == task:
            key = (judgment.query_id, judgment.doc_id)
            latest[key][judgment.annotator or "unknown"] = float(judgment.label)
    people = sorted({name for labels in latest.values() for name in labels})
    items = sorted(key for key, labels in latest.items() if len(labels) >= 2)
    out: dict[str, Any] = {"annotators": len(people), "items_with_two_or_more": len(items)}
    if len(people) < 2 or not items:
        return out
    matrix = np.full((len(people), len(items)), np.nan)
    for column, key in enumerate(items):
        for row, name in enumerate(people):
            matrix[row, column] = latest[key].get(name, np.nan)
    for level in ("nominal", "ordinal", "interval"):
        out[f"alpha_{level}"] = krippendorff_alpha(matrix, level)  # type: ignore[arg-type]
    complete = matrix[:, ~np.isnan(matrix).any(axis=0)]
    if complete.shape[1]:
        out["fleiss_kappa"] = fleiss_kappa(ratings_to_counts(complete.T))
        out["fleiss_items"] = int(complete.shape[1])
    return out
