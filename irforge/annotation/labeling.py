"""Labeling jobs: a Label Studio config, the data it shows and how its answers become labels.

Each built-in job has an XML config in ``irforge/annotation/configs/`` and a registry entry
naming the judgment task it checks, the control whose choice is the label, and the number
each choice stands for. A user config works the same way: pass its path and, if it has more
than one Choices control, the name of the one that carries the label.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from irforge.annotation.errors import AnnotationError
from irforge.core.errors import FormatError, Problem

_VARIABLE = re.compile(r"^\$(\w+)$")


@dataclass(frozen=True)
class Control:
    """One Choices control of a config: its allowed values and whether one must be picked."""

    name: str
    to_name: str
    values: tuple[str, ...]  # what results store: a choice's alias, else its shown value
    multiple: bool
    required: bool
    shown: tuple[str, ...] = ()  # what the annotator reads ("3 · fully answers")


@dataclass(frozen=True)
class ParsedConfig:
    """What irforge needs to know about a Label Studio config."""

    xml: str
    variables: frozenset[str]
    controls: Mapping[str, Control]


def parse_config(xml: str, source: str = "<config>") -> ParsedConfig:
    """Read the data variables and Choices controls of a labeling config."""
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise FormatError(Problem(Path(source), f"labeling config is not valid XML: {exc}",
                                  hint="open it in Label Studio's config editor")) from exc
    variables = set()
    controls = {}
    for element in root.iter():
        match = _VARIABLE.match(element.get("value", ""))
        if match and element.tag not in ("Choice", "Header"):
            variables.add(match.group(1))
        if element.tag == "Choices":
            name = element.get("name")
            if not name:
                raise FormatError(Problem(Path(source), "a Choices control has no name",
                                          field="name"))
            choices = [child for child in element if child.tag == "Choice"]
            values = tuple(child.get("alias") or child.get("value", "") for child in choices)
            controls[name] = Control(name, element.get("toName", ""), values,
                                     element.get("choice", "single") == "multiple",
                                     element.get("required", "false") == "true",
                                     tuple(child.get("value", "") for child in choices))
    if not controls:
        raise FormatError(Problem(Path(source), "the config has no Choices control",
                                  hint="irforge maps Choices answers to labels; add one"))
    return ParsedConfig(xml, frozenset(variables), controls)


@dataclass(frozen=True)
class LabelingJob:
    """A kind of human check: which judgments it covers and how answers map to labels."""

    name: str
    task: str
    config: ParsedConfig
    label_control: str
    label_values: Mapping[str, float]
    writes_qrels: bool = False
    description: str = ""
    generator_tasks: tuple[str, ...] = ()  # judgment tasks the generators write for this job
    implied_label: float | None = None  # what a generator's accepted output claims, on our scale
    intents: tuple[str, ...] = ()  # only queries with one of these intents (empty: any)
    skip_intents: tuple[str, ...] = ()  # never queries with these intents

    def covers_intent(self, intent: str | None) -> bool:
        """Does this job review a query of ``intent`` (STS pairs go to ``sts``)?"""
        if self.intents and intent not in self.intents:
            return False
        return intent not in self.skip_intents

    @property
    def tasks(self) -> tuple[str, ...]:
        """Every judgment task this job reviews: its own and the generators' step names."""
        return (self.task, *self.generator_tasks)

    def llm_label(self, judgment_task: str, label: float) -> float:
        """A generator step's judgment on this job's scale (an accepted rewrite is a claim)."""
        if judgment_task != self.task and self.implied_label is not None:
            return self.implied_label
        return label

    def label_of(self, choice: str) -> float:
        return self.label_values[choice]

    def choice_for(self, label: float) -> str:
        """The choice whose label is nearest to an LLM label (ties go to the lower label)."""
        return min(self.label_values, key=lambda c: (abs(self.label_values[c] - label),
                                                    self.label_values[c]))


def _builtin_xml(name: str) -> str:
    path = resources.files("irforge.annotation.configs").joinpath(f"{name}.xml")
    return path.read_text(encoding="utf-8")


def _numeric(values: tuple[str, ...]) -> dict[str, float]:
    return {value: float(value) for value in values}


_BUILTINS: dict[str, dict[str, Any]] = {
    "relevance": {"task": "relevance", "control": "relevance", "qrels": True,
                  "skip_intents": ("STS",),
                  "text": "graded relevance 0-3 of a passage to a query (with intent)"},
    # the relevance labeler scores STS-intent pairs on the 0-5 similarity scale
    "sts": {"task": "sts", "control": "similarity", "qrels": True,
            "generators": ("relevance",), "intents": ("STS",),
            "text": "semantic similarity 0-5 (STS intent)"},
    "logical_structure": {"task": "logical_structure", "control": "conformity",
                          "generators": ("logical.structure",),
                          "text": "structure conformity 1-4 of a logical query, accept/reject"},
    "evidence_distribution": {"task": "evidence_distribution", "control": "distribution",
                              "labels": {"distributed": 1.0, "not_distributed": 0.0},
                              # a logical query passed the evidence-spread checks to be kept
                              "generators": ("logical.query",), "implied": 1.0,
                              "text": "is the evidence spread over all source passages"},
    "hard_negative": {"task": "hard_negative", "control": "still_satisfies",
                      "labels": {"yes": 1.0, "no": 0.0},
                      # an accepted multicon rewrite claims "no longer satisfies": 0
                      "generators": ("multicon.hard_negative",), "implied": 0.0,
                      "text": "does a hard-negative sentence still satisfy the condition"},
    "instruction_compliance": {"task": "instruction_compliance", "control": "compliance",
                               "labels": {"complies": 1.0, "violates": 0.0}, "qrels": True,
                               # an accepted InfoSearch rewrite claims it meets the condition
                               "generators": ("instructions.rewrite",), "implied": 1.0,
                               "text": "does the passage satisfy the query's instruction"},
}


def list_jobs() -> list[str]:
    return sorted(_BUILTINS)


def get_job(name: str, config_file: Path | None = None, label_control: str | None = None,
            task: str | None = None) -> LabelingJob:
    """A built-in job by name, or a user config (``config_file``) reusing a built-in's task."""
    spec = _BUILTINS.get(name)
    if spec is None and config_file is None:
        raise AnnotationError(f"unknown labeling job {name!r}; use one of {list_jobs()} or pass "
                              f"--config-file with your own Label Studio config")
    spec = spec or {"task": name, "control": None, "text": "user config"}
    if config_file is not None:
        path = Path(config_file)
        if not path.is_file():
            raise AnnotationError(f"labeling config {path} not found")
        config = parse_config(path.read_text(encoding="utf-8"), str(path))
        control = label_control or (spec["control"] if spec["control"] in config.controls
                                    else next(iter(config.controls)))
        source = str(path)
    else:
        from irforge.annotation.guidelines import with_guidelines

        config = parse_config(with_guidelines(_builtin_xml(name), name), f"{name}.xml")
        control = label_control or spec["control"]
        source = f"the built-in {name}.xml"
    if control not in config.controls:
        raise AnnotationError(f"the config {source} has no Choices control named {control!r}; "
                              f"it has {sorted(config.controls)} (use --label-control)")
    values = config.controls[control].values
    labels = spec.get("labels") if config_file is None else None
    if labels is None:
        try:
            labels = _numeric(values)
        except ValueError:
            labels = {value: float(index) for index, value in enumerate(values)}
    return LabelingJob(name, task or spec["task"], config, control, labels,
                       bool(spec.get("qrels")), spec["text"],
                       tuple(spec.get("generators", ())) if task is None else (),
                       spec.get("implied"), tuple(spec.get("intents", ())),
                       tuple(spec.get("skip_intents", ())))


def validate_result(result: Any, config: ParsedConfig) -> list[str]:
    """Check an annotation's result list against the config (the server does not)."""
    if not isinstance(result, list):
        return [f"result must be a list, got {type(result).__name__}"]
    problems = []
    seen: set[str] = set()
    for position, item in enumerate(result):
        if not isinstance(item, Mapping):
            problems.append(f"result[{position}] is not an object")
            continue
        name = item.get("from_name")
        control = config.controls.get(str(name))
        if control is None:
            if item.get("type") == "choices":
                problems.append(f"result[{position}]: unknown control {name!r}")
            continue
        choices = (item.get("value") or {}).get("choices")
        if not isinstance(choices, list) or not choices:
            problems.append(f"result[{position}] ({name}): no choices given")
            continue
        wrong = [choice for choice in choices if choice not in control.values]
        if wrong:
            problems.append(f"result[{position}] ({name}): {wrong} not among "
                            f"{list(control.values)}")
        if len(choices) > 1 and not control.multiple:
            problems.append(f"result[{position}] ({name}): {len(choices)} choices for a single "
                            f"choice control")
        seen.add(control.name)
    missing = [name for name, control in config.controls.items()
               if control.required and name not in seen]
    problems.extend(f"required control {name!r} has no answer" for name in missing)
    return problems


def choices_of(result: list[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The chosen values per control of a (validated) result."""
    out: dict[str, list[str]] = {}
    for item in result:
        if item.get("type", "choices") == "choices" and "from_name" in item:
            out[str(item["from_name"])] = list((item.get("value") or {}).get("choices", []))
    return out


def choice_result(job: LabelingJob, choice: str) -> list[dict[str, Any]]:
    """A Label Studio result list that picks ``choice`` in the job's label control."""
    control = job.config.controls[job.label_control]
    return [{"from_name": control.name, "to_name": control.to_name, "type": "choices",
             "value": {"choices": [choice]}}]
