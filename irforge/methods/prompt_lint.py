"""Prompt lint: a template must agree with the code that reads its answers.

For every template (built-in, or a user's prompt folder) rendered with its example inputs and
with the other inputs its step is given (``prompt_contracts.py``), four checks:

- ``example``: each worked example (a JSON object in the prompt whose keys are the answer's)
  parses, has every key the output schema requires, fits the schema (patterns, enums,
  lengths) and passes the step's own validators: a model that copies the example's shape
  must not be rejected for it;
- ``budget``: the step's output token limit covers the longest answer the prompt asks for
  (the words of every "N words" ask, and of every input the answer repeats whole with the
  words it adds, as an instructed query repeats its core query; to tokens with a margin:
  ``steps/word_budget.py``);
- ``bounds``: where the step's checks bound the answer's words, the prompt states a length
  and asks for no more words than the checks accept (the prompt and the check read one
  declaration);
- ``label``: a labelled input ("Question: {{ query }}") holds what its label says, for every
  form of input the step passes it (a claim is no question);
- ``assertion``: the prompt asserts a fact about its inputs ("this text answers the
  question") only where the code checked it.

Templates with no contract get the checks that need none (JSON syntax, labels against their
example inputs, assertions). :func:`lint_prompts` is what ``irforge prompts lint`` runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irforge.check.schema_fit import schema_problems
from irforge.methods.prompt_contracts import PromptContract, contract_for
from irforge.prompts.forms import word_count
from irforge.prompts.registry import (
    Template,
    folder_template_names,
    get_template,
    list_templates,
)
from irforge.steps.kept_set import query_form
from irforge.steps.word_budget import asked_words, tokens_for_words

EXAMPLE, BUDGET, LABEL, ASSERTION, RENDER = "example", "budget", "label", "assertion", "render"
BOUNDS = "bounds"


@dataclass(frozen=True)
class LintFinding:
    """One problem of one template: which check, what is wrong and how to fix it."""

    template: str
    path: Path
    check: str
    message: str
    fix: str

    def line(self) -> str:
        return f"{self.path}: {self.template}: [{self.check}] {self.message} (fix: {self.fix})"


def lint_prompts(prompts_dir: Path | str | None = None, only_folder: bool = False
                 ) -> list[LintFinding]:
    """Findings of every template (the folder's overrides replacing built-ins); with
    ``only_folder``, of the folder's own templates only."""
    if only_folder and prompts_dir is not None:
        names = folder_template_names(prompts_dir)
        templates = [get_template(name, prompts_dir) for name in names]
    else:
        templates = list_templates(prompts_dir)
    return [finding for template in templates for finding in lint_template(template)]


def lint_template(template: Template, contract: PromptContract | None = None
                  ) -> list[LintFinding]:
    """Every finding of one template (its contract looked up by id unless given)."""
    contract = contract or contract_for(template.name)
    found: list[LintFinding] = []

    def report(check: str, message: str, fix: str) -> None:
        finding = LintFinding(template.name, template.path, check, message, fix)
        if finding not in found:
            found.append(finding)

    for inputs in _inputs(template, contract):
        try:
            text = "\n".join(m["content"] for m in template.render(**inputs))
        except Exception as exc:
            report(RENDER, f"does not render with inputs {_short(inputs)}: {exc}",
                   "declare every variable and keep the Jinja valid")
            continue
        _examples(text, inputs, contract, report)
        if contract is not None:
            _budget(text, inputs, contract, report)
            _bounds(text, inputs, contract, report)
    _labels(template, contract, report)
    _assertions(template, contract, report)
    return found


def _inputs(template: Template, contract: PromptContract | None) -> list[dict[str, Any]]:
    """The example inputs, then each variant the contract adds (over the example)."""
    base = dict(template.example)
    out = [base]
    if contract is not None:
        for variant in contract.variants(base):
            merged = {**base, **variant}
            if set(template.variables) <= set(merged):
                out.append({k: merged[k] for k in template.variables})
    return out


def _short(inputs: Mapping[str, Any]) -> str:
    text = ", ".join(f"{k}={str(v)[:40]!r}" for k, v in inputs.items())
    return text[:200]


def json_objects(text: str) -> list[tuple[str, Any]]:
    """Every top-level ``{...}`` span of ``text`` that starts like JSON (``{"``), with its
    parsed value (None when it does not parse)."""
    out = []
    start = text.find('{"')
    while start != -1:
        end = _closing(text, start)
        if end is None:
            break
        span = text[start:end + 1]
        try:
            value = json.loads(span)
        except json.JSONDecodeError:
            value = None
        out.append((span, value))
        start = text.find('{"', end + 1)
    return out


def _closing(text: str, start: int) -> int | None:
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


_SCHEMATIC = re.compile(r"\.\.\.|…|<[^>]*>|\[\s*n\s*\]|\[numbers\]")


def _examples(text: str, inputs: Mapping[str, Any], contract: PromptContract | None,
              report: Any) -> None:
    model = contract.model(inputs) if contract is not None else None
    keys = set(model.model_json_schema().get("properties", {})) if model is not None else set()
    for span, value in json_objects(text):
        if value is None:
            if not _SCHEMATIC.search(span):
                report(EXAMPLE, f"worked example is not valid JSON: {span[:120]}",
                       "write the example as the exact JSON the model should return")
            continue
        if model is None or not isinstance(value, dict) or not set(value) & keys \
                or not set(value) <= keys:
            continue  # not an answer of this step (an input shown as JSON, say)
        where = f"worked example {span[:100]}"
        problems = schema_problems(model.model_json_schema(), value)
        if problems:
            report(EXAMPLE, f"{where} does not fit the output schema: {'; '.join(problems)}",
                   "make the example fit the schema the model is held to")
            continue
        try:
            parsed = model.model_validate(value)
        except Exception as exc:
            report(EXAMPLE, f"{where} fails the output model: {exc}".replace("\n", " "),
                   "make the example a valid answer")
            continue
        reasons = [r for check in contract.validators for r in check(inputs, parsed)] \
            if contract is not None else []
        if reasons:
            report(EXAMPLE, f"{where} is rejected by the step's validators with inputs "
                   f"{_short(inputs)}: {'; '.join(reasons)}",
                   "write the example (or its shape) so the step's own checks accept it")


def _budget(text: str, inputs: Mapping[str, Any], contract: PromptContract,
            report: Any) -> None:
    if contract.token_limit is None:
        return
    asks = asked_words(text)
    by_field = contract.asked_fields
    counted = [(repr(phrase), words) for phrase, words in asks
               if by_field is None or any(phrase in str(inputs.get(name, ""))
                                          for name in by_field)]
    repeated = [(f"its {name} repeated whole", word_count(str(inputs.get(name, ""))))
                for name in contract.repeats]
    if repeated and contract.added_words:
        repeated.append((f"{contract.added_words} words of its own", contract.added_words))
    if not counted and not repeated:
        return
    needed = tokens_for_words([words for _, words in counted]
                              + [sum(words for _, words in repeated)],
                              fields=len(counted) + (1 if repeated else 0))
    limit = contract.token_limit(inputs)
    if limit < needed:
        parts = counted + repeated
        what = ", ".join(phrase for phrase, _ in parts)
        report(BUDGET, f"asks for {what} ({sum(w for _, w in parts)} words, about "
               f"{needed} tokens) but the step stops the answer at {limit} tokens",
               "size the step's max_tokens from the words it asks for and the inputs it "
               "repeats (irforge.steps.word_budget.tokens_for_words), or ask for fewer words")


def _bounds(text: str, inputs: Mapping[str, Any], contract: PromptContract,
            report: Any) -> None:
    if contract.word_bounds is None:
        return
    low, high = contract.word_bounds(inputs)
    asks = asked_words(text)
    if not asks:
        report(BOUNDS, f"does not say how many words to write, while the step accepts {low} "
               f"to {high}", "state the step's bounds (render them from its variables)")
    over = [phrase for phrase, words in asks if words > high]
    if over:
        report(BOUNDS, f"asks for {', '.join(map(repr, over))} but the step rejects answers "
               f"over {high} words", "ask for what the step's check accepts")


_LABELLED = re.compile(r"^\s*(?P<label>[A-Z][A-Za-z ]{1,30}):\s*\"?\{\{\s*(?P<var>\w+)\s*\}\}",
                       re.MULTILINE)
# what a label promises about its value: the query forms it admits
LABEL_FORMS: Mapping[str, frozenset[str]] = {
    "question": frozenset({"question"}),
    "claim": frozenset({"claim"}),
    "statement": frozenset({"claim"}),
    "keywords": frozenset({"keyword"}),
    "keyword query": frozenset({"keyword"}),
}
def _labels(template: Template, contract: PromptContract | None, report: Any) -> None:
    for key in ("user", "system"):
        source = getattr(template, key) or ""
        for match in _LABELLED.finditer(source):
            label, var = match.group("label").strip(), match.group("var")
            admits = LABEL_FORMS.get(label.lower())
            if admits is None:
                continue
            forms = set(contract.forms.get(var, ())) if contract is not None else set()
            example = template.example.get(var)
            if isinstance(example, str) and example.strip():
                forms.add(query_form(example))
            wrong = sorted(forms - admits)
            if wrong:
                report(LABEL, f"'{label}: {{{{ {var} }}}}' may hold {', '.join(wrong)} "
                       f"queries, which are not a {label.lower()}",
                       "use a label that fits every input form (e.g. 'Search query:')")


# a statement opening a sentence about an input the prompt then shows ("This text answers the
# question "{{ query }}""), not an instruction ("a question the passage answers")
_ASSERTS = re.compile(r"(?:^|[.!?]\s+)(?:this|the)\s+(?:text|passage|document)\s+(?:answers|is "
                      r"relevant to|contains the answer to|responds to)\b[^\n]*\{\{",
                      re.IGNORECASE | re.MULTILINE)


def _assertions(template: Template, contract: PromptContract | None, report: Any) -> None:
    checked = set(contract.checked) if contract is not None else set()
    for key in ("user", "system"):
        for match in _ASSERTS.finditer(getattr(template, key) or ""):
            if "answers" not in checked:
                said = match.group(0).strip(" .!?{").strip()
                report(ASSERTION, f"states {said!r} about its input, which no code "
                       "checked", "state only what the code verified (e.g. 'this text was "
                       "found for the search ...'), or check it before the call")


def summary(findings: Sequence[LintFinding], templates: int) -> str:
    """The closing line of ``irforge prompts lint``."""
    if not findings:
        return f"prompt lint: {templates} template(s), no problem found"
    names = len({f.template for f in findings})
    return f"prompt lint: {len(findings)} problem(s) in {names} of {templates} template(s)"
