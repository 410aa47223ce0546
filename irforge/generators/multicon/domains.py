"""Domains for MultiConIR: what a condition looks like in books, movies, people, cases, law.

The paper (appendix B) guides condition extraction with a per-domain feature list and uses a
hard-negative strategy per domain (section 3.2, step 3). Five domains ship built in; users add
their own in a YAML file (see ``docs/multicon.md``)::

    domains:
      recipes:
        entity: recipe
        features: [cuisine, main ingredients, cooking time, difficulty]
        strategy: modify
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from irforge.core.errors import FormatError, IrforgeError, Problem
from irforge.core.yamlfile import load_yaml
from irforge.generators.multicon.terms import contains_term

# substitute: 'modify' by construction (the LLM names a key term and its replacement)
Strategy = Literal["modify", "keyword", "substitute"]
STRATEGIES: tuple[str, ...] = ("modify", "keyword", "substitute")


class HardNegativeExample(BaseModel):
    """One few-shot example for the hard-negative prompt."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1)
    sentence: str = Field(min_length=1)
    modified: str = Field(min_length=1)


class Domain(BaseModel):
    """Everything the prompts need to know about one domain."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    entity: str = Field(min_length=1, description="noun for one document, e.g. 'book'")
    features: tuple[str, ...] = Field(min_length=1)
    #: the features are words of the corpus (a derived domain's term clusters), not kinds of
    #: fact: a document is shown only the ones it contains
    corpus_terms: bool = False
    strategy: Strategy = "modify"
    instruction: str = Field(default="", description="request opening instruction-style queries")
    instruction_examples: tuple[str, ...] = ()
    descriptive_examples: tuple[str, ...] = ()
    hard_negative_examples: tuple[HardNegativeExample, ...] = ()


    @property
    def instruction_text(self) -> str:
        """The request f of an instruction-style query <f, C> (paper section 3)."""
        article = "an" if self.entity[:1].lower() in "aeiou" else "a"
        return self.instruction or f"Find {article} {self.entity} that meets these conditions:"


def _hn(query: str, sentence: str, modified: str) -> HardNegativeExample:
    return HardNegativeExample(query=query, sentence=sentence, modified=modified)


BUILTIN_DOMAINS: dict[str, Domain] = {
    "books": Domain(
        name="books", entity="book",
        features=("author", "publication year and publisher", "genre", "setting",
                  "main characters", "key plot events", "themes", "awards and reception"),
        instruction_examples=(
            "Find a book that meets these conditions: 1. A mystery novel set in a lighthouse. "
            "2. The narrator is a retired ferry captain.",),
        descriptive_examples=(
            "A mystery novel set in a lighthouse, narrated by a retired ferry captain.",),
        hard_negative_examples=(_hn(
            "A novel whose heroine trains carrier pigeons.",
            "The heroine spends her summers training carrier pigeons on the roof.",
            "The heroine spends her summers repairing clocks in the cellar."),),
    ),
    "movies": Domain(
        name="movies", entity="movie",
        features=("summary", "lead actors", "release date", "release area", "genre",
                  "detailed plot"),
        instruction_examples=(
            "Find a movie that meets these conditions: 1. A silent comedy from the 1920s. "
            "2. The hero is a bicycle courier.",),
        descriptive_examples=("A 1920s silent comedy whose hero works as a bicycle courier.",),
        hard_negative_examples=(_hn(
            "A film released first in Portugal.",
            "The film premiered in Lisbon in the spring of 1998.",
            "The film premiered in Oslo in the autumn of 2003."),),
    ),
    "people": Domain(
        name="people", entity="person", strategy="keyword",
        instruction="Find a person who meets these conditions:",
        features=("birth date and place", "nationality", "education", "occupation",
                  "notable works or achievements", "awards", "family", "career milestones"),
        instruction_examples=(
            "Find a person who meets these conditions: 1. A painter born in a fishing village. "
            "2. Studied at an art school in Glasgow.",),
        descriptive_examples=("A painter born in a fishing village who studied art in Glasgow.",),
        hard_negative_examples=(_hn(
            "Which architect studied at the Bauhaus?",
            "She studied at the Bauhaus before opening her own studio.",
            "She studied accounting in Leipzig, while her cousin took classes at the Bauhaus."),),
    ),
    "medical": Domain(
        name="medical", entity="medical case",
        features=("patient symptoms", "clinical diagnosis", "drug allergies",
                  "family medical history", "surgical details", "postoperative outcomes",
                  "hospitalization duration", "recovery status"),
        instruction_examples=(
            "Find a medical case that meets these conditions: 1. The patient is allergic to "
            "penicillin. 2. Admitted with a persistent dry cough.",),
        descriptive_examples=(
            "A patient with a penicillin allergy admitted for a persistent dry cough.",),
        hard_negative_examples=(_hn(
            "A patient discharged after three days.",
            "The patient was discharged after three days without complications.",
            "The patient stayed for three weeks after a wound infection."),),
    ),
    "legal": Domain(
        name="legal", entity="legal document",
        features=("case type", "involved parties", "court ruling", "legal provisions",
                  "evidence summary", "defense strategy"),
        instruction_examples=(
            "Find a legal document that meets these conditions: 1. A tenancy dispute. "
            "2. The court ruled for the landlord.",),
        descriptive_examples=("A tenancy dispute in which the court ruled for the landlord.",),
        hard_negative_examples=(_hn(
            "A case decided under the consumer protection statute.",
            "The claim was upheld under the consumer protection statute.",
            "The claim was dismissed as time-barred under the limitation act."),),
    ),
}

ALIASES: dict[str, str] = {"book": "books", "movie": "movies", "films": "movies",
                           "person": "people", "medical_cases": "medical",
                           "medical-cases": "medical", "legal_documents": "legal",
                           "legal-documents": "legal"}


def load_domains(path: Path) -> dict[str, Domain]:
    """Read user domains from a YAML file with a top-level ``domains`` mapping."""
    path = Path(path)
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise FormatError(Problem(path, "domain file not found",
                                  hint="pass an existing YAML file to --domains")) from exc
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise FormatError(Problem(path, f"invalid YAML: {exc}",
                                  line=None if line is None else line + 1)) from exc
    if not isinstance(data, Mapping) or not isinstance(data.get("domains"), Mapping):
        raise FormatError(Problem(path, "expected a top-level 'domains:' mapping",
                                  field="domains", hint="see docs/multicon.md for the format"))
    out: dict[str, Domain] = {}
    for name, spec in data["domains"].items():
        if not isinstance(spec, Mapping):
            raise FormatError(Problem(path, "each domain must be a mapping",
                                      field=f"domains.{name}"))
        try:
            out[str(name)] = Domain(name=str(name), **spec)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise FormatError(Problem(path, first["msg"], field=f"domains.{name}.{where}",
                                      hint="fields: entity, features, strategy (modify|keyword), "
                                           "instruction_examples, descriptive_examples, "
                                           "hard_negative_examples")) from exc
    return out


def get_domain(name: str, extra: Mapping[str, Domain] | None = None) -> Domain:
    """A built-in or user-defined domain by name (user definitions win)."""
    known = {**BUILTIN_DOMAINS, **dict(extra or {})}
    key = name if name in known else ALIASES.get(name.lower(), name.lower())
    if key not in known:
        raise IrforgeError(f"unknown domain {name!r}; known: {', '.join(sorted(known))} "
                           "(add one with --domains FILE.yaml)")
    return known[key]


_FEATURE_TERMS = re.compile(r",\s*|\s+and\s+")


def shown_features(domain: Domain, document: str) -> list[str]:
    """The domain's features as hints for one document: a built-in or user domain's kinds
    of fact as declared; a derived domain's corpus terms only where the document contains
    them (a hint from another part of the corpus misleads), possibly none."""
    if not domain.corpus_terms:
        return list(domain.features)
    terms = (t.strip() for feature in domain.features for t in _FEATURE_TERMS.split(feature))
    return list(dict.fromkeys(t for t in terms if t and contains_term(document, t)))
