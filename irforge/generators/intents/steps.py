"""DisastIR's two LLM generation steps (section 3.4, appendix B), each read top to bottom here:
the output model the LLM fills, the plain-code checks of that output, and the :class:`Step`
that ties them to the prompt template.

Steps: 1 ``intents.needs`` (information needs brainstormed from a seed passage; one is picked
at random, seeded), 2 ``intents.query`` (the query, plus a generated passage where the intent
calls for one). Both declare ``queries_of``/``source_of`` where their output holds queries, so
the runner's query gates compare each query with its seed passage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from irforge.core.records import Doc
from irforge.generators.domain_profile import tokens
from irforge.generators.intents.plan import PlannedQuery, Task, pick_need
from irforge.prompts.context import doc_context
from irforge.prompts.forms import form_metadata, query_form
from irforge.steps import Rejected, Step
from irforge.steps.choices import choice_model, numbered

GENERATED_BY = "intents"
NEEDS_STEP = "intents.needs"
QUERY_STEP = "intents.query"
# maxItems keeps constrained decoding from listing needs until max_tokens; string lengths are
# checked in code instead (llama.cpp grammars cannot express a long maxLength).
MAX_NEEDS = 10
MAX_QUERY_WORDS = 300
# the seed passage the prompts show a small model: long passages are cut to this many words (a
# small model copies the start of a long passage instead of reading it); a capable model sees
# the whole passage (``seed_words=None``), which grounding then checks the query against
SEED_WORDS = 90
# a query that is a verbatim run of this many words of its seed passage is a copy
COPY_WORDS = 4


# -- output models ---------------------------------------------------------------------------

def _no_description(schema: dict[str, Any]) -> None:
    schema.pop("description", None)


class _Output(BaseModel):
    # the schema shown to the model carries no docstring: small models copy it as their answer
    model_config = ConfigDict(json_schema_extra=_no_description)


class Needs(_Output):
    """Step 1: a list of information need statements."""

    needs: list[str] = Field(min_length=1, max_length=MAX_NEEDS)


class GeneratedQuery(_Output):
    """Step 2 for intents without a generated passage (QAdoc)."""

    query: str = Field(min_length=1)


class GeneratedExample(_Output):
    """Step 2 for intents with a generated passage."""

    query: str = Field(min_length=1)
    passage: str = Field(min_length=1)


# -- checks ----------------------------------------------------------------------------------

def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _words(text: str) -> str:
    """Lower-case words joined by single spaces, punctuation dropped (for copy checks)."""
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text.lower()).split())


def copies_seed(query: str, seed: Doc) -> bool:
    """True when the query is a verbatim run of COPY_WORDS+ words of the seed's title + text
    (the small-model failure: "title + first sentence" returned as the query); a query that
    is the title is the gates' ``title`` rule."""
    words = _words(query)
    if not words:
        return False
    source = _words(f"{seed.title} {seed.text}")
    return len(words.split()) >= COPY_WORDS and f" {words} " in f" {source} "


def check_example(query: str, passage: str | None, seed_passage: str,
                  seed_title: str = "") -> str | None:
    """Plain-code checks of a step-2 answer; returns the problem, or None when it is usable.

    A generated passage that is the seed passage (whole, or the start the prompt showed) is a
    copy, not a new passage."""
    if not query.strip():
        return "the query is blank"
    if len(query.split()) > MAX_QUERY_WORDS:
        return f"the query is longer than {MAX_QUERY_WORDS} words"
    if _normal(query) == _normal(seed_passage) or copies_seed(
            query, Doc("seed", seed_passage, seed_title)):
        return "the query copies the seed passage"
    if passage is None:
        return None
    if not passage.strip():
        return "the generated passage is blank"
    if _normal(passage) == _normal(query):
        return "the generated passage repeats the query"
    shown = seed_text(Doc("seed", seed_passage)).removesuffix(" ...")
    if _normal(passage) in (_normal(seed_passage), _normal(shown)):
        return "the generated passage copies the seed passage instead of writing a new one"
    return None


def seed_text(doc: Doc, words: int | None = SEED_WORDS) -> str:
    """The seed passage as the prompts show it: at most ``words`` words (all when None)."""
    parts = doc.text.split()
    return doc.text if words is None or len(parts) <= words else \
        " ".join(parts[:words]) + " ..."


def only_declared(template_name: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Keep the variables the template declares (built-in and generic templates differ)."""
    from irforge.prompts import get_template

    declared = get_template(template_name).variables
    return {name: values[name] for name in declared if name in values}


# -- step 1: information needs ---------------------------------------------------------------

MIN_NEED_WORDS = 3


def needs_values(item: PlannedQuery, n_needs: int,
                 seed_words: int | None = SEED_WORDS) -> dict[str, Any]:
    task: Task = item.task
    return {"passage": seed_text(item.seed_doc, seed_words), "context": doc_context(item.seed_doc),
            "category": task.category.name,
            "category_description": task.category.description or task.category.name,
            "n_needs": n_needs, "intent_description": task.intent.description,
            "sentences": numbered(need_sentences(item.seed_doc))}


#: the needs template that makes step 1 a choice: the need is a seed sentence picked by id
PICK_NEED_TEMPLATE = "intents.pick_need"


def need_sentences(doc: Doc) -> list[str]:
    """The seed passage's sentences (as the prompts show it) that may become a need: those of
    MIN_NEED_WORDS+ words, or every sentence when none is that long."""
    return list(_need_sentences(seed_text(doc)))


@lru_cache(maxsize=1024)
def _need_sentences(shown: str) -> tuple[str, ...]:
    """Split once per seed: the schema, the prompt and the accepted value all need them."""
    from irforge.generators.multicon.sentences import split_sentences

    spans = [span.text for span in split_sentences(shown.removesuffix(" ..."))]
    return tuple([s for s in spans if len(s.split()) >= MIN_NEED_WORDS] or spans or [shown])


def pick_need_step(template: str = PICK_NEED_TEMPLATE) -> Step[PlannedQuery, str]:
    """Step 1 by construction (for small models): the model picks one sentence of the seed
    passage by id (a JSON-schema enum); that sentence is the need, grounded and verbatim."""
    return Step(
        name=NEEDS_STEP, template=template,
        output_model=lambda item: choice_model(len(need_sentences(item.seed_doc)), 1),
        variables=lambda item: only_declared(template, needs_values(item, 1)),
        item_id=lambda item: item.query_id,
        accept=lambda item, value: need_sentences(item.seed_doc)[value.ids[0] - 1],
        metadata=lambda item: {"task": item.task.name, "source_doc": item.seed_doc.doc_id},
        log_accepted=False)


def stems(text: str) -> set[str]:
    """Content words cut to their first four letters (proof, proofed, proofing -> proo)."""
    return {word[:4] for word in tokens(text)}


def grounded(text: str, seed: Doc) -> bool:
    """Whether at least half of ``text``'s content words (one, for a short text) occur in the
    seed passage: a need or query about something else (the prompt's worked example, say)
    is not this passage's."""
    own = stems(text)
    return len(own & stems(f"{seed.title} {seed.text}")) >= max(1, len(own) // 2)


def _pick(item: PlannedQuery, value: Needs) -> str:
    """The need picked at random (seeded) among those of at least three words grounded in the
    seed passage."""
    usable = [need for need in value.needs
              if len(need.split()) >= MIN_NEED_WORDS and grounded(need, item.seed_doc)]
    if not usable:
        raise Rejected(f"no information need of at least {MIN_NEED_WORDS} words grounded in "
                       "the seed passage")
    return pick_need(usable, item.seed)


def needs_step(template: str, n_needs: int,
               seed_words: int | None = SEED_WORDS) -> Step[PlannedQuery, str]:
    """Step 1: information needs from the seed passage (cut to ``seed_words``); accepted as
    the one need picked. With :data:`PICK_NEED_TEMPLATE` the need is a seed sentence chosen by
    id instead."""
    if template == PICK_NEED_TEMPLATE:
        return pick_need_step(template)
    return Step(
        name=NEEDS_STEP, template=template, output_model=Needs,
        variables=lambda item: only_declared(template,
                                             needs_values(item, n_needs, seed_words)),
        item_id=lambda item: item.query_id, accept=_pick,
        metadata=lambda item: {"task": item.task.name, "source_doc": item.seed_doc.doc_id},
        log_accepted=False)


# -- step 2: the query (and generated passage) -----------------------------------------------

@dataclass(frozen=True)
class QueryItem:
    """Step 2 input: one planned query and the information need picked for it."""

    planned: PlannedQuery
    need: str


@dataclass(frozen=True)
class Example:
    """An accepted step-2 output: the query, and the generated passage (None for QAdoc)."""

    query: str
    passage: str | None
    model: str = ""


def query_values(item: PlannedQuery, need: str,
                 seed_words: int | None = SEED_WORDS) -> dict[str, Any]:
    intent = item.task.intent
    form = query_form(item.form) if item.form else None
    return {"task": need, "passage": seed_text(item.seed_doc, seed_words),
            "context": doc_context(item.seed_doc),
            "category": item.task.category.name, **item.attributes,
            "intent_description": intent.description, "query_name": intent.query_name,
            "passage_name": intent.passage_name, "generates_passage": intent.generates_passage,
            "form_instruction": form.instruction if form else "",
            "form_example": form.example if form else ""}


#: DisastIR's query attributes, recorded on each query under these names
RECORDED_ATTRIBUTES = {"query_length": "length", "clarity": "clarity",
                       "difficulty": "education"}


def form_record(item: PlannedQuery) -> dict[str, Any]:
    """What a query records of what it was asked for: its declared form (and a claim's
    stance) and DisastIR's length, clarity and education attributes."""
    recorded = {name: item.attributes[key] for key, name in RECORDED_ATTRIBUTES.items()
                if key in item.attributes}
    return {**(form_metadata(query_form(item.form)) if item.form else {}), **recorded}


def example_model(item: QueryItem) -> type[BaseModel]:
    return GeneratedExample if item.planned.task.intent.generates_passage else GeneratedQuery


def _example_reasons(item: QueryItem, value: Any) -> list[str]:
    """This step's own checks of an answer: blank, too long, a copy of the seed, a generated
    passage that repeats the query or the seed, a query unrelated to its need. The rules
    every query passes (echoed prompt examples, grounding, the form it was asked for...)
    are the validator registry's, run by the runner's gates on the same sample."""
    seed = item.planned.seed_doc
    passage = getattr(value, "passage", None) if item.planned.task.intent.generates_passage \
        else None
    problem = check_example(value.query, passage, seed.text, seed.title)
    form = query_form(item.planned.form) if item.planned.form else None
    # a persona's request and a refuted claim may say the need in other words; grounding
    # in the passage (the registry's rule for the form) still applies to them
    literal = form is None or form.grounding == "strict"
    if problem is None and literal and not stems(value.query) & stems(item.need):
        problem = "the query shares no content word with its information need"
    return [problem] if problem else []


def _example(item: QueryItem, value: Any) -> Example:
    passage = value.passage.strip() if item.planned.task.intent.generates_passage else None
    return Example(" ".join(value.query.split()), passage)


def example_token_limit(attributes: Mapping[str, Any], generates_passage: bool) -> int:
    """Step 2's output limit: the words its length attributes ask for ("at least 150 words"
    of query, "at least 200 words" of passage), never under the schema's own limit."""
    from irforge.llm.degeneration import schema_token_limit
    from irforge.llm.structured import output_schema
    from irforge.steps.word_budget import tokens_for_words, words_allowed

    names = ["query_length"] + (["passage_length"] if generates_passage else [])
    asked = [words_allowed(str(attributes.get(name, ""))) or 0 for name in names]
    model = GeneratedExample if generates_passage else GeneratedQuery
    return max(schema_token_limit(output_schema(model)),
               tokens_for_words(asked, fields=len(names)))


def query_token_limit(item: QueryItem) -> int:
    """:func:`example_token_limit` of one step-2 item."""
    return example_token_limit(item.planned.attributes,
                               item.planned.task.intent.generates_passage)


def query_step(template: str, seed_words: int | None = SEED_WORDS) -> Step[QueryItem, Example]:
    """Step 2: the query (and the passage it should retrieve) for the picked need, the seed
    passage cut to ``seed_words``."""
    return Step(
        name=QUERY_STEP, template=template, output_model=example_model,
        max_tokens=query_token_limit,
        variables=lambda item: only_declared(template, query_values(item.planned, item.need,
                                                                    seed_words)),
        item_id=lambda item: item.planned.query_id,
        validators=(_example_reasons,),
        accept=_example,
        metadata=lambda item: {"task": item.planned.task.name,
                               "source_doc": item.planned.seed_doc.doc_id},
        queries_of=lambda item, value: [value.query],
        # query_kind: the intent's own query form (intents from --intents-file included),
        # which the registry's form.intent_type checks
        # query_form: the declared form asked for (with a claim's stance), which the
        # registry's form and grounding rules read
        query_metadata=lambda item, value: {"intent": item.planned.task.intent.name,
                                            "query_kind": item.planned.task.intent.query_name,
                                            "need": item.need, **form_record(item.planned)},
        source_of=lambda item: (item.planned.seed_doc.title, item.planned.seed_doc.text),
        log_accepted=False)  # the query's metadata carries its model; judgments are labels
