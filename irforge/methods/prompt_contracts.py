"""What the code does with each built-in template's answer: the prompt lint's contracts.

A contract names, from a template's inputs, the output model the step holds the answer to,
the step's own validators, its output token limit, the other inputs the step passes (the
length attributes of every built-in intent, each condition a rewrite targets, each logical
type's demonstration, queries of every form), the query forms a variable may hold, and the
facts about its inputs the code checks. Each is built from the step's own functions, so a
contract cannot drift from the step it describes. A user template with a built-in id is held
to the built-in's contract (the code reading its answer is the same).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

Inputs = Mapping[str, Any]
Variants = Callable[[Inputs], Sequence[Inputs]]
ALL_FORMS = ("question", "keyword", "claim")
# queries of every form a step that takes any intent's query may be given
QUERY_FORMS: tuple[Inputs, ...] = (
    {"query": "Why do users leave a slow website?"},
    {"query": "slow website users leave"},
    {"query": "Slow websites lose half of their visitors within three seconds."},
)

# core queries the instructed form takes besides one sentence: several sentences, a question
# mark inside, a price and an abbreviation (the worked example must fit them too), and a long
# persona request (a length attribute asks for 150 words or more), which the answer repeats
# whole: the step's max_tokens must cover it
LONG_CORES: tuple[Inputs, ...] = (
    {"query": "My budget is $2.50 a day. Which snacks, e.g. fruit or nuts, fit it?"},
    {"query": "Our shop's site takes 4.5 s to load on phones. Do visitors leave? What "
              "should we fix first?"},
    {"query": " ".join((
        "I run a small family bakery in a market town, and for the last two years our "
        "website has been a single page that my nephew built for us one weekend.",
        "Lately more of our customers order birthday cakes by phone after looking us up on "
        "their mobiles, and several of them have told me that the page takes a long time to "
        "appear and that the photos of the cakes load one by one while they wait.",
        "My nephew has moved away for work, so I am trying to understand the problem myself "
        "before I pay somebody to fix it, and I would rather not spend money on changes that "
        "make no difference to the people who actually visit.",
        "I have read that large pictures, cheap hosting and too many fonts can all slow a page "
        "down, but I cannot tell which of these matters most for a page like ours.",
        "How many visitors does a slow page really lose, and which change should a small "
        "shop make first so that the page shows up quickly on a phone?"))},
)


def _none(base: Inputs) -> Sequence[Inputs]:
    return ()


@dataclass(frozen=True)
class PromptContract:
    """How one template's answer is read (see the module docstring)."""

    model: Callable[[Inputs], type]
    validators: tuple[Callable[[Inputs, Any], Sequence[str]], ...] = ()
    token_limit: Callable[[Inputs], int] | None = None
    variants: Variants = _none
    forms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    checked: tuple[str, ...] = ()
    # the inputs whose length asks are about the answer (None: every ask in the prompt)
    asked_fields: tuple[str, ...] | None = None
    # the fewest and most words the step's checks accept in the answer (None: no bound)
    word_bounds: Callable[[Inputs], tuple[int, int]] | None = None
    # the inputs the answer repeats whole (an instructed query repeats its core query), and
    # the most words it adds to them: both count towards the longest answer
    repeats: tuple[str, ...] = ()
    added_words: int = 0


def contract_for(name: str) -> PromptContract | None:
    """The contract of template id ``name``, or None when irforge has none for it."""
    return _contracts().get(name)


@lru_cache(maxsize=1)
def _contracts() -> dict[str, PromptContract]:
    out: dict[str, PromptContract] = {}
    for build in (_intents, _taxonomy, _instructions, _logical, _multicon, _check):
        out.update(build())
    return out


# -- intents -------------------------------------------------------------------------------

def _intents() -> dict[str, PromptContract]:
    from irforge.generators.intents.config import load_intents
    from irforge.generators.intents.steps import (
        GeneratedExample,
        GeneratedQuery,
        Needs,
        check_example,
        example_token_limit,
    )

    pools: dict[str, tuple[bool, list[Inputs]]] = {}
    needs: set[str] = set()
    for intent in load_intents().values():
        needs.add(intent.needs_template)
        attributes = intent.attributes
        combos = [{"query_length": q, "passage_length": p}
                  for q in attributes["query_length"] for p in attributes["passage_length"]]
        _, known = pools.setdefault(intent.query_template, (intent.generates_passage, []))
        known.extend(combos)
    out: dict[str, PromptContract] = {}
    for name, (passage, combos) in pools.items():
        model = GeneratedExample if passage else GeneratedQuery

        def valid(inputs: Inputs, value: Any, passage: bool = passage) -> list[str]:
            problem = check_example(value.query, value.passage if passage else None,
                                    str(inputs.get("passage", "")))
            return [problem] if problem else []

        out[name] = PromptContract(
            model=lambda inputs, model=model: model, validators=(valid,),
            token_limit=lambda inputs, passage=passage: example_token_limit(inputs, passage),
            variants=lambda base, combos=tuple(combos): combos,
            asked_fields=("query_length", "passage_length"))
    for name in needs:
        out[name] = PromptContract(model=lambda inputs: Needs)
    return out


def _taxonomy() -> dict[str, PromptContract]:
    from irforge.core.records import Doc
    from irforge.generators.intents.model_taxonomy import (
        TAXONOMY_TEMPLATE,
        TaxonomyRequest,
        answer_model,
        example_values,
        taxonomy_token_limit,
    )

    def ids(inputs: Inputs, key: str) -> tuple[str, ...]:
        return tuple(str(doc["id"]) for doc in inputs[key])

    # the worked example names the example's documents; the code's own example is checked too
    return {TAXONOMY_TEMPLATE: PromptContract(
        model=lambda inputs: answer_model(ids(inputs, "example_documents")),
        token_limit=lambda inputs: taxonomy_token_limit(TaxonomyRequest(tuple(
            Doc(doc_id, "") for doc_id in ids(inputs, "documents")))),
        variants=lambda base: [example_values()])}


# -- instructions --------------------------------------------------------------------------

def _condition(name: str) -> Any:
    """The condition value shown as ``name`` in a prompt (``forum post``), from the shipped
    dimensions; an unknown one stands for itself."""
    from irforge.generators.instructions.dimensions import ConditionValue, load_dimensions
    from irforge.generators.instructions.steps.common import shown

    for dimension in load_dimensions().values():
        for key, value in dimension.values.items():
            if shown(key) == name or key == name:
                return value
    return ConditionValue(name=name, description=name, terms=(name,))


def _instructions() -> dict[str, PromptContract]:
    from irforge.generators.instructions.dimensions import load_dimensions
    from irforge.generators.instructions.steps.common import shown
    from irforge.generators.instructions.steps.instruction import (
        InstructedQuery,
        ReversedQuery,
        _request_model,
        check_instruction,
        check_reversal,
        request_pattern,
        request_tokens,
    )
    from irforge.generators.instructions.steps.rewrite import (
        RewrittenDocument,
        requirements,
        rewrite_tokens,
        user_names,
    )
    from irforge.prompts.forms import query_form

    def instructed(inputs: Inputs) -> type:
        terms = _condition(str(inputs["condition"])).terms
        return _request_model(InstructedQuery, "instructed_query",
                              request_pattern(str(inputs["query"]), terms))

    def reversed_model(inputs: Inputs) -> type:
        terms = _condition(str(inputs["condition"])).terms
        return _request_model(ReversedQuery, "reversed_query",
                              request_pattern(str(inputs["query"]), terms, negated=True))

    # the answer repeats the core query whole and adds the form's instruction budget
    added = int(query_form("instructed").instruction_words or 0)
    # every shipped condition value, said in its own phrase ("written for experts"): each
    # worked example must pass that value's checks and pattern
    values = tuple({"dimension": dimension.name, "condition": shown(name),
                    "condition_description": value.description, "phrase": value.said}
                   for dimension in load_dimensions().values()
                   for name, value in dimension.values.items())
    out = {
        "instructions.instruction": PromptContract(
            model=instructed, variants=lambda base: (*QUERY_FORMS, *LONG_CORES, *values),
            forms={"query": ALL_FORMS},
            validators=(lambda inputs, value: check_instruction(
                value.instructed_query, str(inputs["query"]),
                _condition(str(inputs["condition"]))),),
            token_limit=lambda inputs: request_tokens(str(inputs["query"]), "instructed"),
            repeats=("query",), added_words=added),
        "instructions.reverse": PromptContract(
            model=reversed_model, variants=lambda base: (*QUERY_FORMS, *LONG_CORES, *values),
            forms={"query": ALL_FORMS},
            validators=(lambda inputs, value: check_reversal(
                value.reversed_query, str(inputs["instructed"]), str(inputs["query"]),
                _condition(str(inputs["condition"]))),),
            token_limit=lambda inputs: request_tokens(str(inputs["query"]), "reversed"),
            repeats=("query",), added_words=added),
    }
    names = tuple(user_names(0, "lint", 3))
    for dimension in load_dimensions().values():
        rule = dimension.rewrite
        if rule is None:
            continue
        targets = [{"target": shown(target), "target_description":
                    dimension.values[target].description,
                    "requirements": requirements(dimension.values[target], names)}
                   for target in rule.targets if target in dimension.values]

        out[rule.template] = PromptContract(
            model=lambda inputs: RewrittenDocument,
            token_limit=lambda inputs: rewrite_tokens(_condition(str(inputs["target"])),
                                                      str(inputs["document"])),
            variants=lambda base, targets=tuple(targets): [
                {**t, **q} for t in targets for q in QUERY_FORMS],
            forms={"query": ALL_FORMS}, asked_fields=("requirements",))
    return out


# -- logical -------------------------------------------------------------------------------

def _logical() -> dict[str, PromptContract]:
    from irforge.generators.logical.demos import DEMONSTRATIONS
    from irforge.generators.logical.query_schema import LogicalQueryOutput, open_query_model
    from irforge.generators.logical.steps import StructureJudgment, demo_variables, query_problems
    from irforge.generators.logical.types import get_type

    def problems(inputs: Inputs, value: LogicalQueryOutput) -> list[str]:
        # the small profile's checks (answers found whole) and the capable one's (what a
        # negation rules out), both on the example's own passage
        qtype, passages = get_type(str(inputs["type_name"])), [str(inputs["demo_passage"])]
        found = query_problems(qtype, value, passages)[1]
        if inputs.get("ask_excluded"):
            found += query_problems(qtype, value, passages, own_wording=True)[1]
        return list(dict.fromkeys(found))

    def model(inputs: Inputs) -> type[LogicalQueryOutput]:
        # a negation type's example shows what it rules out only where the prompt asks
        name = str(inputs["type_name"])
        if get_type(name).has_negation and not inputs.get("ask_excluded"):
            return LogicalQueryOutput
        return open_query_model(name, 1)

    return {
        # the worked example must fit the open schema (every key, the type's group sizes)
        # and the checks every answer passes, on its own demonstration passage
        "logical.query": PromptContract(
            model=model, validators=(problems,),
            variants=lambda base: [demo_variables(name, demo, open_fields)
                                   for name, demo in DEMONSTRATIONS.items()
                                   for open_fields in (False, True)]),
        "logical.judge": PromptContract(model=lambda inputs: StructureJudgment),
    }


# -- multicon ------------------------------------------------------------------------------

def _multicon() -> dict[str, PromptContract]:
    from irforge.generators.multicon.phrases import (
        MAX_PHRASE_WORDS,
        MIN_PHRASE_WORDS,
        PHRASE_WORDS,
        phrase_problem,
    )
    from irforge.generators.multicon.steps import ConditionPhrase

    def one_condition(inputs: Inputs, value: ConditionPhrase) -> list[str]:
        problem = phrase_problem(value.phrase)
        return [problem] if problem else []

    # the worked example passes the step's own phrase rule (word bounds, a subject of its
    # own); the prompt is rendered with the bounds the step passes it
    return {"multicon.condition_phrase": PromptContract(
        model=lambda inputs: ConditionPhrase, validators=(one_condition,),
        variants=lambda base: [dict(PHRASE_WORDS)],
        word_bounds=lambda inputs: (MIN_PHRASE_WORDS, MAX_PHRASE_WORDS))}


# -- check ---------------------------------------------------------------------------------

def _check() -> dict[str, PromptContract]:
    from irforge.generators.answer_judge.steps import AnswerVerdict

    # the judge of ``irforge check --judge-model``: its worked verdict fits the output model;
    # a query of any form may stand after "Query:"
    return {"check.answers": PromptContract(model=lambda inputs: AnswerVerdict,
                                            variants=lambda base: list(QUERY_FORMS))}
