"""The taxonomy a capable model names: categories asked for once over a sample of the corpus.

With ``taxonomy: derived`` and a capable model (irforge/llm/profile.py), the model sees a
deterministic sample of the corpus (the source selector's best passage of each of equal runs
of the corpus: :func:`~irforge.corpus.sources.corpus_sample`), each as its id, title and
opening words, and names the categories a person would use, each with a one-line description,
keywords and the ids of the sample documents it was seen in. The answer is held to its output
model (ids shown, unique non-empty names, 2 to N categories): a bad answer is re-asked by the
engine, then a clear error, never a fallback. A category's seed passages are the documents
the model named, then every other passage its keywords place there
(:func:`~irforge.generators.intents.plan.assign_categories`). The call goes through the
build's runner, so the engine's cache answers a re-run. The small model keeps the lexical
derivation (``taxonomy.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field, StringConstraints, model_validator

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc
from irforge.generators.intents.config import Category, Taxonomy
from irforge.generators.intents.plan import assign_categories
from irforge.generators.intents.taxonomy import DERIVED, MODEL, ChosenTaxonomy
from irforge.steps import Step

if TYPE_CHECKING:
    from irforge.steps.runner import BuildRunner

TAXONOMY_STEP = "intents.taxonomy"
TAXONOMY_TEMPLATE = "intents.taxonomy"
SAMPLE_DOCUMENTS = 16  # documents shown to the model (the prompt stays a few thousand tokens)
OPENING_WORDS = 40  # words of each document's opening shown
TITLE_CHARS = 100
MIN_CATEGORIES, MAX_CATEGORIES = 2, 8
MAX_KEYWORDS = 5
NAME_CHARS, DESCRIPTION_CHARS = 60, 200

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


# -- the answer ------------------------------------------------------------------------------

class ProposedCategory(BaseModel):
    """One category the model names."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                           max_length=NAME_CHARS)]
    description: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                                  max_length=DESCRIPTION_CHARS)]
    keywords: list[Text] = Field(max_length=MAX_KEYWORDS)
    documents: list[Text] = Field(min_length=1)


class ProposedTaxonomy(BaseModel):
    """The model's answer: the categories (their count is bounded per sample)."""

    categories: list[ProposedCategory] = Field(min_length=MIN_CATEGORIES,
                                               max_length=MAX_CATEGORIES)


def answer_problems(answer: ProposedTaxonomy, ids: Sequence[str]) -> list[str]:
    """What makes an answer unusable for a sample with document ``ids``: repeated category
    names, or document ids that are not among those shown."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    for category in answer.categories:
        key = " ".join(category.name.lower().split())
        if key in seen:
            problems.append(f"the category name {category.name!r} repeats {seen[key]!r}; "
                            "give each category its own name")
        seen.setdefault(key, category.name)
    known = set(ids)
    for category in answer.categories:
        unknown = [doc_id for doc_id in category.documents if doc_id not in known]
        if unknown:
            problems.append(f"category {category.name!r} names document id(s) {unknown} that "
                            "are not in the list; copy ids exactly from the [id] lines")
    return problems


def most_categories(ids: Sequence[str]) -> int:
    """The most categories a sample of ``ids`` may get: one per document, 2 to 8."""
    return max(MIN_CATEGORIES, min(MAX_CATEGORIES, len(ids)))


@lru_cache(maxsize=32)
def answer_model(ids: tuple[str, ...]) -> type[ProposedTaxonomy]:
    """The output model for a sample with document ``ids``: the answer's shape, and
    :func:`answer_problems` as validation, so the engine re-asks with the problem named."""
    most = most_categories(ids)

    class TaxonomyAnswer(ProposedTaxonomy):
        categories: list[ProposedCategory] = Field(min_length=MIN_CATEGORIES, max_length=most)

        @model_validator(mode="after")
        def _usable(self) -> TaxonomyAnswer:
            problems = answer_problems(self, ids)
            if problems:
                raise ValueError("; ".join(problems))
            return self

    return TaxonomyAnswer


# -- the request -----------------------------------------------------------------------------

# the worked example the prompt shows (irforge's own; the prompt lint holds it to its model)
EXAMPLE_DOCUMENTS: tuple[Mapping[str, str], ...] = (
    {"id": "g-04", "title": "Pruning roses in late winter",
     "opening": "Cut the canes of hybrid teas back to three buds above the graft once the "
                "hard frosts are over ..."},
    {"id": "g-11", "title": "Tomato blight",
     "opening": "Brown patches on the lower leaves spread upward in wet weather; remove the "
                "leaves and water at the base ..."},
    {"id": "g-17", "title": "Working heavy clay",
     "opening": "Dig coarse grit and composted bark into clay in autumn so that frost breaks "
                "the clods apart ..."},
    {"id": "g-23", "title": "Black aphids on broad beans",
     "opening": "Pinch out the growing tips once the first pods set: the aphids gather "
                "there ..."},
)
EXAMPLE_ANSWER: Mapping[str, Any] = {"categories": [
    {"name": "Pests and diseases",
     "description": "Recognising and treating insects and blights that damage plants.",
     "keywords": ["aphids", "blight", "pests", "leaves"], "documents": ["g-11", "g-23"]},
    {"name": "Pruning and plant care",
     "description": "When and how to cut back and look after garden plants.",
     "keywords": ["pruning", "canes", "buds"], "documents": ["g-04"]},
    {"name": "Soil preparation",
     "description": "Improving the ground before planting: drainage, texture and compost.",
     "keywords": ["soil", "clay", "compost", "grit"], "documents": ["g-17"]},
]}


@dataclass(frozen=True)
class TaxonomyRequest:
    """The one item of the taxonomy step: the sample of documents shown to the model."""

    documents: tuple[Doc, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(doc.doc_id for doc in self.documents)


def taxonomy_sample(docs: Sequence[Doc], seed: int = 0,
                    size: int = SAMPLE_DOCUMENTS) -> TaxonomyRequest:
    """The passages the model is shown: the source selector's best passage of each of
    ``size`` equal runs of the corpus (the same for the same corpus and seed)."""
    from irforge.corpus.sources import corpus_sample

    return TaxonomyRequest(tuple(corpus_sample(docs, size, seed)))


def _opening(doc: Doc) -> str:
    words = doc.text.split()
    return " ".join(words[:OPENING_WORDS]) + (" ..." if len(words) > OPENING_WORDS else "")


def shown(doc: Doc) -> dict[str, str]:
    """One passage as the prompt lists it: id, title and section (a book's chapter), its
    opening words."""
    labels = [" ".join(str(label).split()) for label in
              (doc.title, (doc.metadata or {}).get("section")) if label]
    title = " > ".join(dict.fromkeys(labels)) or "untitled"
    return {"id": doc.doc_id, "title": title[:TITLE_CHARS], "opening": _opening(doc)}


def request_values(request: TaxonomyRequest) -> dict[str, Any]:
    """The template's variables for one request."""
    return {"documents": [shown(doc) for doc in request.documents],
            "least": MIN_CATEGORIES, "most": most_categories(request.ids),
            "max_keywords": MAX_KEYWORDS, **example_values()}


def example_values() -> dict[str, Any]:
    """The worked example's variables: its documents and its answer as JSON."""
    return {"example_documents": [dict(doc) for doc in EXAMPLE_DOCUMENTS],
            "example_answer": json.dumps(EXAMPLE_ANSWER, ensure_ascii=False)}


def taxonomy_token_limit(request: TaxonomyRequest) -> int:
    """The answer's token limit: every category at its longest, with each document's id."""
    per_category = 24 + NAME_CHARS // 3 + DESCRIPTION_CHARS // 3 + MAX_KEYWORDS * 6
    ids = sum(len(doc_id) // 2 + 3 for doc_id in request.ids)
    return 32 + most_categories(request.ids) * per_category + 2 * ids


def taxonomy_step(template: str = TAXONOMY_TEMPLATE) -> Step[TaxonomyRequest, Any]:
    """The one call: categories over the sample, held to :func:`answer_model`."""
    return Step(
        name=TAXONOMY_STEP, template=template,
        output_model=lambda request: answer_model(request.ids),
        variables=request_values, item_id=lambda request: "taxonomy",
        max_tokens=taxonomy_token_limit,
        metadata=lambda request: {"documents": len(request.documents)},
        log_accepted=False)


# -- the taxonomy ----------------------------------------------------------------------------

def proposed_taxonomy(answer: ProposedTaxonomy, docs: Sequence[Doc], name: str
                      ) -> tuple[Taxonomy, dict[str, list[str]]]:
    """The taxonomy of an accepted answer and each category's seed passage ids: those the
    model named, then the other passages of ``docs`` its keywords place there."""
    categories = [Category(name=c.name, short=f"C{number}", description=c.description,
                           keywords=list(c.keywords))
                  for number, c in enumerate(answer.categories, start=1)]
    taxonomy = Taxonomy(name=name, categories=categories)
    named = {doc_id for c in answer.categories for doc_id in c.documents}
    by_keywords = assign_categories([doc for doc in docs if doc.doc_id not in named], taxonomy)
    pools = {category.key: list(dict.fromkeys(
        [*proposed.documents, *(doc.doc_id for doc in by_keywords[category.key])]))
        for category, proposed in zip(categories, answer.categories, strict=True)}
    return taxonomy, pools


def ask_model(runner: BuildRunner, request: TaxonomyRequest) -> ProposedTaxonomy:
    """The model's accepted answer for ``request`` through ``runner`` (cached); an answer
    still unusable after the engine's re-asks is an error naming why, its failure logged."""
    if not request.documents:
        raise IrforgeError("no passage of the corpus is worth showing the model to derive a "
                           "taxonomy (the source selector rejected every one); give longer "
                           "prose passages, or set taxonomy: disastir or a taxonomy YAML file")
    accepted = runner.run(taxonomy_step(), [request])
    if "taxonomy" in accepted:
        return accepted["taxonomy"]
    from irforge.steps.runner import check_stop

    failure = runner.ledger.failures[-1]
    runner.write_logs()
    check_stop(runner.engine)  # a budget stop or every call failed: its own exit (4, 5)
    raise IrforgeError(
        f"the model's taxonomy could not be used ({failure.reason}); logged in "
        f"{runner.bench.failures_path}; set taxonomy: lexical (term clusters of the corpus, "
        "no model), disastir or a taxonomy YAML file")


def derive_with_model(runner: BuildRunner, docs: Sequence[Doc], seed: int = 0
                      ) -> ChosenTaxonomy:
    """``taxonomy: derived`` for a capable model: the model's categories over the sample of
    ``docs`` for ``seed``, seeded by the documents it named and its keywords."""
    request = taxonomy_sample(docs, seed)
    answer = ask_model(runner, request)
    taxonomy, pools = proposed_taxonomy(answer, docs, DERIVED)
    return ChosenTaxonomy(taxonomy, MODEL, pools, {"sample": list(request.ids)})


def estimate_request(engine: Any, docs: Sequence[Doc], seed: int = 0) -> dict[str, Any]:
    """What the taxonomy request would send and cost (a dry run sends nothing)."""
    from irforge.generators.run_summary import estimate_calls

    request = taxonomy_sample(docs, seed)
    return estimate_calls(engine, {(TAXONOMY_TEMPLATE, answer_model(request.ids)):
                                   [request_values(request)]})
