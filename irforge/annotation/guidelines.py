"""Written guidelines per labeling job: shown at the top of every task page (Header lines in
the labeling config) and as the project's instructions (Label Studio shows them before the
first task), so an annotator never has to guess what a choice means."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ElementTree
from functools import lru_cache
from importlib import resources

from irforge.core.yamlfile import load_yaml

GUIDELINES: dict[str, tuple[str, ...]] = {
    "relevance": (
        "Judge the passage against what the searcher needs, read from the query and its intent.",
        "3 = it fully answers or does what is asked; 2 = it answers part of it; 1 = same "
        "subject but no answer; 0 = unrelated or only shares words.",
        "Judge this passage alone: do not assume facts from other passages or your own "
        "knowledge.",
        "When torn between two grades, pick the lower one and say why in a comment if the "
        "project has comments.",
    ),
    "sts": (
        "Compare the meaning of the two texts, not their wording or length.",
        "5 = they say the same thing; 3 = roughly the same but an important detail differs; "
        "1 = same topic only; 0 = unrelated.",
    ),
    "hard_negative": (
        "The sentence was rewritten so that it should no longer satisfy the condition.",
        "Answer 'no' when the rewritten sentence no longer satisfies the condition (a valid "
        "hard negative); 'yes' when it still does (the rewrite failed).",
        "Read the condition literally: a sentence that is vaguer than the condition does not "
        "satisfy it.",
    ),
    "instruction_compliance": (
        "The instruction narrows the query (an audience, a format, a language, a source...).",
        "'complies' when the passage answers the query and meets the instruction; 'violates' "
        "when it misses the instruction, even if it answers the query.",
    ),
    "logical_structure": (
        "The query should follow the logical type shown (chains, intersections, unions, "
        "negations of the listed triples).",
        "Score how strictly it follows that structure (4 = exactly, 1 = not at all), then keep "
        "('accept') or drop ('reject') the query.",
        "A fluent query that drops a condition or a negation does not follow the structure.",
    ),
    "evidence_distribution": (
        "A good multi-passage query needs every listed passage to be answered.",
        "'yes' when answering needs evidence from every passage; 'no' when fewer passages "
        "suffice (one passage alone answers it, or one passage is not needed).",
    ),
}


def intent_rule(intent: str) -> str:
    """How to grade a pair of this built-in intent, from its relevance goal and scale (a claim
    of FC: "the passage supports or refutes the claim; 3 = Direct support or refutation
    ..."), so refuting evidence answers the need as much as supporting evidence does."""
    return intent_rules().get(intent, "")


@lru_cache(maxsize=1)
def intent_rules() -> dict[str, str]:
    """Intent code -> its grading rule (see :func:`intent_rule`)."""
    out = {}
    for code, spec in _builtin_intents().items():
        relevance = spec.get("relevance") if isinstance(spec, dict) else None
        if not isinstance(relevance, dict) or not relevance.get("scale"):
            continue
        scale = "; ".join(f"{grade} = {name}" for grade, name in
                          reversed(list(enumerate(relevance["scale"]))))
        goal = str(relevance.get("goal") or "").strip()
        out[str(code)] = f"a match means {goal}: {scale}" if goal else scale
    return out


def guidelines_for(job: str) -> tuple[str, ...]:
    """The job's rules (a user job without written guidelines gets none)."""
    return GUIDELINES.get(job, ())


def instructions_html(job: str, description: str) -> str:
    """The project's instructions (Label Studio's ``expert_instruction``, HTML)."""
    extra = tuple(f"Intent {code}: {rule}." for code, rule in intent_rules().items()) \
        if job == "relevance" else ()
    rules = "".join(f"<li>{html.escape(rule)}</li>" for rule in (*guidelines_for(job), *extra))
    return (f"<p><b>{html.escape(description)}</b></p>"
            + (f"<ol>{rules}</ol>" if rules else "")
            + "<p>The model's labels are hidden so that they do not steer your answer.</p>")


def with_guidelines(xml: str, job: str) -> str:
    """The config with a "Guidelines" block (static Header lines) at the top of the page."""
    rules = guidelines_for(job)
    if not rules:
        return xml
    root = ElementTree.fromstring(xml)
    block = ElementTree.Element("View", {"style": "background:#f4f6f9;padding:6px 10px;"
                                         "margin-bottom:8px;border-radius:4px"})
    ElementTree.SubElement(block, "Header", {"value": "Guidelines", "size": "5"})
    for number, rule in enumerate(rules, start=1):
        ElementTree.SubElement(block, "Header", {"value": f"{number}. {rule}", "size": "6"})
    root.insert(0, block)
    return ElementTree.tostring(root, encoding="unicode")


@lru_cache(maxsize=1)
def intent_names() -> dict[str, str]:
    """Intent code -> what it means (from the built-in intents), for the annotator's page."""
    return {str(code): str(spec.get("description", ""))
            for code, spec in _builtin_intents().items()
            if isinstance(spec, dict) and spec.get("description")}


@lru_cache(maxsize=1)
def _builtin_intents() -> dict:
    path = resources.files("irforge.generators.intents").joinpath("builtin_intents.yaml")
    return load_yaml(path.read_text(encoding="utf-8")) or {}
