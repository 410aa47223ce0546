"""Form validators: length, repetition, language, template debris and the query's form.

Length, repetition and language are the rules of :mod:`irforge.check.query_rules`, which the
generation gates apply too: each rule and its thresholds are written once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from irforge.check.base import Case, Context, Finding, validator
from irforge.check.query_rules import (
    LANGUAGE_MIN_WORDS,
    language_reason,
    length_reason,
    repetition_reason,
)
from irforge.check.text import words
from irforge.prompts.forms import QueryForm, is_claim, is_question, query_forms

# template debris: (what it is, pattern); any match rejects the field
DEBRIS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a brace or template placeholder", re.compile(r"[{}]|\{\{|\}\}|\{%|%\}")),
    # a bracket alone is content ("[a-zA-Z]", "job [1]"); quotes around one, or a whole
    # field that is a bracketed list, are JSON
    ("a JSON fragment", re.compile(r"\]\s*\[|\[\s*\"|\"\s*\]|\"\s*:\s*[\"\[{]|"
                                   r"^\s*\[[^\]]*,[^\]]*\]\s*$|^\s*\[\s*$")),
    ("an angle-bracket tag", re.compile(r"</?[A-Za-z_][A-Za-z0-9_ ]{0,30}>")),
    ("a placeholder", re.compile(r"\b(?:TODO|TBD|XXX+|lorem ipsum|N/A)\b|\[(?:insert|your|"
                                 r"placeholder|query|answer|condition)[^\]]*\]|<[A-Z_]{3,}>",
                                 re.IGNORECASE)),
    ("a role or field label", re.compile(
        r"(?:^|[\s\"'(])(?:query|question|answer|assistant|user|system|passage|output|input|"
        r"response|claim|need|instruction|hypothesis|premise|json)\s*:", re.IGNORECASE)),
    # a role word opening the text as a speaker ("Assistant", "system:", "User How..."),
    # not as a word of a keyword query ("system clock gmt")
    ("a role word", re.compile(r"^\s*(?:[Aa]ssistant|[Ss]ystem|[Uu]ser)"
                               r"(?:\s*(?:[:>|\n-]|$)|\s+[A-Z])")),
    # a searcher may write "I cannot even see these files" or "here is what happened": only a
    # refusal, an answer presented as such, or an opening "Sure," is the model talking
    ("model chatter", re.compile(
        r"\b(?:as an ai|i'?m sorry|i (?:cannot|can'?t|am unable to|won'?t) (?:help|assist|"
        r"provide|comply|fulfil+|do that|generate|create|write|complete)|"
        r"here(?: is|'s| are) (?:the|a|an|your|my) (?:rewritten |reworded |revised |new |"
        r"reversed |instructed |search )?(?:query|queries|question|request|version|answer|"
        r"json|output)\b|you can reword|reword it|rewritten (?:query|version)|the (?:rewritten|"
        r"reversed|new) (?:query|request)|note:)|^\s*sure\s*[,!.]", re.IGNORECASE)),
)

FIX_REWRITE = "rewrite or drop the query; a generator rejects it with the same validator"


def _where(case: Case, name: str) -> str:
    return "the query" if name == "text" else f"its {name}"


@validator("form.length")
def check_length(case: Case, context: Context) -> Iterator[Finding]:
    """Empty or one-word queries."""
    reason = length_reason(case.text)
    if reason:
        yield Finding("form.length", "text", reason.split(": ", 1)[1],
                      "write a query of at least two words")


@validator("form.repetition")
def check_repetition(case: Case, context: Context) -> Iterator[Finding]:
    """Degenerate repetition in any field ("the the the", "!!!!!!")."""
    for name, text in case.fields.items():
        reason = repetition_reason(text)
        if reason:
            yield Finding("form.repetition", name, f"{_where(case, name)}: "
                          + reason.split(": ", 1)[1], FIX_REWRITE)


#: a query of which at least this share of words occur in the corpus is in its language
#: (the language identifier runs only on the others)
LANGUAGE_VOCABULARY_SHARE = 0.6


@validator("form.language")
def check_language(case: Case, context: Context) -> Iterator[Finding]:
    """A query confidently in another language than the corpus."""
    tokens = words(case.text)
    if len(tokens) < LANGUAGE_MIN_WORDS:
        return
    if context.docs and sum(w in context.vocabulary for w in tokens) / len(tokens) \
            >= LANGUAGE_VOCABULARY_SHARE:
        return
    reason = language_reason(case.text, context.expected_language())
    if reason:
        yield Finding("form.language", "text", reason.split(": ", 1)[1],
                      f"write the query in the corpus language ({context.language})")


@validator("form.debris")
def check_debris(case: Case, context: Context) -> Iterator[Finding]:
    """Template debris in any field: braces, JSON fragments, placeholders, role words."""
    for name, text in case.fields.items():
        for what, pattern in DEBRIS:
            match = pattern.search(text)
            if match:
                yield Finding("form.debris", name, f"{_where(case, name)} holds {what} "
                              f"({match.group().strip()!r}): template debris, not a query",
                              FIX_REWRITE)
                break


@lru_cache(maxsize=1)
def intent_query_kinds() -> dict[str, str]:
    """Intent name -> its query kind ('question', 'claim', ...), read from the built-in
    intents file as data (so check stays below the generators)."""
    import yaml

    path = Path(__file__).resolve().parent.parent / "generators" / "intents" / \
        "builtin_intents.yaml"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 30x faster, same data
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) if path.is_file() else {}
    return {name: str(spec.get("query_name", "")) for name, spec in (data or {}).items()
            if isinstance(spec, dict)}


# query kind -> (test a query of that kind passes, what the kind is): for queries written
# before forms were declared (no ``query_form`` in their metadata)
KIND_RULES = {
    "question": (is_question, "a question (ending with '?' or opening with a question word)"),
    "claim": (is_claim, "a claim (a statement, not a question)"),
}


def _declared_texts(case: Case, declared: QueryForm) -> list[tuple[QueryForm, str, str]]:
    """(form, field, text) a declared form applies to: the query text; for an instructed
    query whose text is its core query (InfoSearch rows, generation's gate), its
    ``instructed`` text, and a reversal's ``reversed`` text under the reversed form."""
    core = str(case.meta.get("core_query") or "").strip()
    if declared.shape != "instructed" or case.text.strip() != core:
        return [(declared, "text", case.text)]
    forms = query_forms()
    out = []
    for field in ("instructed", "reversed"):
        text = case.meta.get(field)
        if isinstance(text, str) and text.strip():
            form = forms.get(field, declared) if field != "instructed" else declared
            out.append((form, field, text))
    return out


@validator("form.intent_type")
def check_intent_type(case: Case, context: Context) -> Iterator[Finding]:
    """A query that is not of the form it was asked for: its declared ``query_form``
    (irforge/prompts/forms.yaml), else its intent's kind (FC a claim, QA a question)."""
    intent = case.meta.get("intent")
    declared = query_forms().get(str(case.meta.get("query_form", "")))
    if declared is not None:
        asker = f"intent {intent!r}" if intent else f"the {declared.name} form"
        for form, field, text in _declared_texts(case, declared):
            # the length its prompt asked for (recorded as ``length``) never counts against it
            problem = form.problem(text, str(case.meta.get("length") or ""),
                                   str(case.meta.get("core_query") or ""))
            if problem:
                yield Finding("form.intent_type", field, f"{asker} asks for {form.describes}; "
                              f"{text.strip()!r} {problem}",
                              f"rewrite the query as {form.describes.split(' (')[0]}")
        return
    kind = case.meta.get("query_kind") or intent_query_kinds().get(str(intent), "")
    rule = KIND_RULES.get(str(kind))
    if rule is not None and not rule[0](case.text):
        yield Finding("form.intent_type", "text", f"intent {intent!r} asks for {rule[1]}; "
                      f"{case.text.strip()!r} is not one",
                      f"rewrite the query as {rule[1].split(' (')[0]}")
