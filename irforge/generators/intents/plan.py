"""Plain planning code: tasks = intents x categories, seed passages per task, sampled attributes.

Everything here is deterministic given a seed, so a re-run plans the same items and the LLM
cache answers them without new calls (DisastIR 3.2 and 3.4).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.core.records import Doc
from irforge.generators.intents.config import ATTRIBUTE_NAMES, Category, IntentSpec, Taxonomy
from irforge.prompts.forms import query_form, word_range

CATEGORY_FIELD = "category"


@dataclass(frozen=True)
class Task:
    """One retrieval task: an intent applied to one category."""

    intent: IntentSpec
    category: Category

    @property
    def name(self) -> str:
        return f"{self.intent.name}_{self.category.key}"


@dataclass(frozen=True)
class PlannedQuery:
    """One query to generate: its task, seed passage, sampled attributes and the RNG seed."""

    query_id: str
    task: Task
    seed_doc: Doc
    attributes: Mapping[str, str]
    seed: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: the declared query form asked for (irforge/prompts/forms.yaml); "" when the intent
    #: declares none
    form: str = ""


def item_rng(seed: int, *parts: object) -> random.Random:
    """A random generator for one item, independent of the order items are processed in."""
    return random.Random("|".join(str(part) for part in (seed, *parts)))


def sample_attributes(intent: IntentSpec, rng: random.Random) -> dict[str, str]:
    """Draw query length, clarity, passage length and difficulty from the intent's pools."""
    return {name: rng.choice(intent.attributes[name]) for name in ATTRIBUTE_NAMES}


def choose_form(intent: IntentSpec, attributes: Mapping[str, str], rng: random.Random) -> str:
    """One of the intent's declared forms whose word bounds meet the sampled query length
    (any declared form when none does); "" for an intent that declares none."""
    if not intent.forms:
        return ""
    low, high = word_range(attributes.get("query_length", ""))
    fitting = [name for name in intent.forms
               if query_form(name).min_words <= high and query_form(name).max_words >= low]
    return rng.choice(fitting or list(intent.forms))


def build_tasks(intents: Sequence[IntentSpec], taxonomy: Taxonomy) -> list[Task]:
    """Every (intent, category) pair, intents outer, categories in taxonomy order."""
    return [Task(intent, category) for intent in intents for category in taxonomy.categories]


def _keyword_hits(text: str, keywords: Sequence[str]) -> int:
    lowered = text.lower()
    return sum(len(re.findall(rf"\b{re.escape(word.lower())}", lowered)) for word in keywords)


def assign_categories(docs: Sequence[Doc], taxonomy: Taxonomy,
                      min_hits: int = 2) -> dict[str, list[Doc]]:
    """Seed passages per category key.

    A doc whose ``metadata.category`` names a category (by name or short id, any case) goes
    there; otherwise to the category with most keyword hits in title and text (ties: the
    earlier category in the taxonomy), if it has at least ``min_hits``; else to none.
    """
    by_label = {}
    for category in taxonomy.categories:
        by_label[category.name.lower()] = category.key
        by_label[category.key.lower()] = category.key
        if category.short:
            by_label[category.short.lower()] = category.key
    pools: dict[str, list[Doc]] = {category.key: [] for category in taxonomy.categories}
    for doc in docs:
        label = doc.metadata.get(CATEGORY_FIELD) if doc.metadata else None
        if isinstance(label, str) and label.lower() in by_label:
            pools[by_label[label.lower()]].append(doc)
            continue
        text = f"{doc.title} {doc.text}"
        best_key, best_hits = None, max(min_hits, 1) - 1
        for category in taxonomy.categories:
            hits = _keyword_hits(text, category.keywords)
            if hits > best_hits:
                best_key, best_hits = category.key, hits
        if best_key is not None:
            pools[best_key].append(doc)
    return pools


def plan_queries(tasks: Sequence[Task], pools: Mapping[str, Sequence[Doc]], per_task: int,
                 seed: int) -> tuple[list[PlannedQuery], list[Task]]:
    """``per_task`` planned queries for every task that has seed passages.

    Seed passages are drawn without replacement from a seeded shuffle of the category's pool,
    reshuffled when used up, so every task gets the same count. Returns the plan and the tasks
    left empty because their category has no passage.
    """
    if per_task < 1:
        raise ValueError(f"per_task must be at least 1, got {per_task}")
    planned: list[PlannedQuery] = []
    empty: list[Task] = []
    for task in tasks:
        pool = sorted(pools.get(task.category.key, ()), key=lambda doc: doc.doc_id)
        if not pool:
            empty.append(task)
            continue
        order_rng = item_rng(seed, task.name, "order")
        order: list[Doc] = []
        for index in range(per_task):
            if not order:
                order = list(pool)
                order_rng.shuffle(order)
            doc = order.pop()
            query_id = f"{task.name}_{index:04d}"
            rng = item_rng(seed, query_id)
            attributes = sample_attributes(task.intent, rng)
            form = choose_form(task.intent, attributes, item_rng(seed, query_id, "form"))
            planned.append(PlannedQuery(query_id=query_id, task=task, seed_doc=doc,
                                        attributes=attributes, seed=f"{seed}|{query_id}",
                                        form=form))
    return planned, empty


def pick_need(needs: Sequence[str], seed: str) -> str:
    """One information need, chosen at random but reproducibly (DisastIR 3.4: a random need)."""
    cleaned = [need.strip() for need in needs if need and need.strip()]
    if not cleaned:
        raise ValueError("no non-empty information need to choose from")
    return random.Random(f"{seed}|need").choice(cleaned)
