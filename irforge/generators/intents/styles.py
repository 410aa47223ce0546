"""Query styles: how a build asks its model for queries (``query_style`` of the intents
Config; not the LLM's model profile, ``irforge/llm/profile.py``).

``default`` runs each intent as declared. ``small-model`` suits a small local model: the need
is a seed sentence picked by id (``intents.pick_need``), the query prompt shows that sentence
and no worked example (``intents.sentence_query``; small models repeat the built-in prompts'
examples, which the echo check rejects), and only the intent's first declared form is asked
for (a question, a supported claim).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from irforge.generators.intents.config import IntentSpec
from irforge.generators.intents.steps import PICK_NEED_TEMPLATE

Style = Callable[[IntentSpec], IntentSpec]


def small_model(intent: IntentSpec) -> IntentSpec:
    """The intent with a picked need, the one-sentence query prompt and its first form."""
    return intent.model_copy(update={"needs_template": PICK_NEED_TEMPLATE,
                                     "query_template": "intents.sentence_query",
                                     "forms": intent.forms[:1]})


STYLES: dict[str, Style] = {"default": lambda intent: intent, "small-model": small_model}


def with_style(name: str, intents: Sequence[IntentSpec]) -> list[IntentSpec]:
    """``intents`` as query style ``name`` runs them (a name the registry lacks: ValueError)."""
    if name not in STYLES:
        raise ValueError(f"unknown query style {name!r}; known: {sorted(STYLES)}")
    return [STYLES[name](intent) for intent in intents]
