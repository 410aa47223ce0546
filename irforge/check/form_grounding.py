"""How a query's words must come from its passage, by the form it was asked for.

The form's declaration (irforge/prompts/forms.yaml, ``grounding``) names the rule:

- ``strict`` (keyword, question, supported claim, logical): every name and number, and
  GROUND_MIN_SHARE of the content words, occur in the passage (paraphrases included);
- ``persona`` (long requests): the asker's own details (first-person clauses that ask
  nothing: "I'm 34", "we live in Canada") need no passage (irforge.check.persona); what is
  asked keeps strict names and numbers, and its content words are grounded, or a sentence
  that asks is, or one is as close to a passage sentence as REQUEST_SIMILARITY;
- ``refuted`` (claims with one fact changed, stance ``refuted``): the fact the passage
  contradicts may be missing from it: at most one changed name or number, with a passage
  name, or a passage number of the same kind or with a unit on one side only ("16 years
  old" for "18 or over"), in its place; the rest is grounded as ``strict``, or the claim is
  as close to a passage sentence as CLAIM_SIMILARITY. A claim about something the passage
  does not discuss stays ungrounded;
- ``core`` (instructed and reversed queries): the core query is grounded by the rule of
  its own form, recorded with the instructed query (``core_form``, ``core_stance``: a
  refuted claim by the fact it contradicts, a persona request as ``persona``; none
  recorded: ``strict``); the instruction is the instruction rules' to check.

Every rule reads a passage with its title and section path, and takes a name from the other
passages of its document (irforge.check.document_context) or from its source's topic, the
names most documents of its folder write (irforge.check.collection); a supported claim's
names are its facts, and take only the document's titles and section paths.

A query with no declared form is grounded strictly, or as refuted when its metadata records
``stance: refuted``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from irforge.check.aliases import Aliases
from irforge.check.base import Case, Context, Finding, validator
from irforge.check.collection import topics_text
from irforge.check.document_context import labelled, names_context
from irforge.check.grounding import Ungrounded, evidence, paraphrased, ungrounded
from irforge.check.persona import split_request
from irforge.check.text import Quantity, names, quantities
from irforge.prompts.forms import core_form, is_question, query_forms, sentences


def form_grounding(case: Case) -> str:
    """The grounding rule of the query's declared form (``strict`` when none is declared)."""
    declared = query_forms().get(str(case.meta.get("query_form", "")))
    if declared is not None:
        return declared.grounding
    return "refuted" if case.meta.get("stance") == "refuted" else "strict"


@dataclass(frozen=True)
class Ground:
    """What a query's words may come from: its passages (with their titles and section
    paths) and, for names only, the documents they were cut from."""

    passages: tuple[str, ...]
    aliases: Aliases
    names_from: tuple[str, ...] = ()
    #: a capable model's request may word its need in its own terms (see :func:`_carried`)
    own_wording: bool = False

    def missing(self, text: str, paraphrase: bool = False) -> Ungrounded:
        return ungrounded(text, self.passages, self.aliases, paraphrase, self.names_from)


def _words(text: str, ground: Ground, rescue: bool = False) -> Ungrounded:
    """What of ``text`` its passages lack: by words first; the paraphrase model is asked
    only when the words fall short and names and numbers pass (or ``rescue`` says to)."""
    found = ground.missing(text)
    if found.words_ok() or ((found.names or found.numbers) and not rescue):
        return found
    return ground.missing(text, paraphrase=True)


def own_wording(case: Case, profile: str | None) -> bool:
    """Whether the query's writer may word its need in its own terms: a capable model's
    query (``profile``), or, where the profile is unknown (``irforge check``), one not marked
    ``demo_grade``. A small model's query keeps word-level grounding."""
    if profile is not None:
        from irforge.llm.profile import CAPABLE

        return profile == CAPABLE
    return not case.meta.get("demo_grade")


def _is_claim(case: Case) -> bool:
    declared = query_forms().get(str(case.meta.get("query_form", "")))
    if declared is not None:
        return declared.shape == "claim"
    return case.meta.get("stance") in ("supported", "refuted")


def _carried(text: str, found: Ungrounded, case: Case, ground: Ground) -> bool:
    """A request worded in its writer's own terms whose need the passage carries: every name
    and number grounded, and the whole request as close to a window of one or two passage
    sentences as WINDOW_SIMILARITY. Claims are left out: a claim's words are its facts, and a
    claim restating its passage in other words is a copy, not a search."""
    if not ground.own_wording or found.names or found.numbers or _is_claim(case):
        return False
    from irforge.check.semantic import WINDOW_SIMILARITY, closest_window

    return closest_window(text, ground.passages) >= WINDOW_SIMILARITY


def _strict(case: Case, ground: Ground) -> str | None:
    found = _words(case.text, ground)
    return None if _carried(case.text, found, case, ground) else found.problem()


def _asked(text: str) -> list[str]:
    """The sentences of a request that ask (questions), else all its sentences."""
    parts = sentences(text)
    return [s for s in parts if is_question(s)] or parts


def _request_missing(text: str, ground: Ground, paraphrase: bool) -> Ungrounded:
    """What of a request its passages lack, the asker's own details excused; the paraphrase
    model is asked only when the words left fall short."""
    found = split_request(text, ground.passages).excuses(ground.missing(text))
    return paraphrased(found, ground.passages) if paraphrase and not found.words_ok() \
        else found


def _need_grounded(text: str, ground: Ground, paraphrase: bool) -> bool:
    """A sentence of the request that asks (else any sentence) is grounded, with 2+ content
    words, the asker's details aside."""
    for sentence in _asked(text):
        own = _request_missing(sentence, ground, paraphrase)
        if own.content >= 2 and own.problem() is None:
            return True
    return False


def _persona(case: Case, ground: Ground) -> str | None:
    from irforge.check.semantic import REQUEST_SIMILARITY, closest_sentence

    found = _request_missing(case.text, ground, paraphrase=False)
    problem = found.problem()
    if problem is None or found.names or found.numbers:
        return problem
    if _need_grounded(case.text, ground, paraphrase=False):
        return None
    rescued = _request_missing(case.text, ground, paraphrase=True)
    if rescued.problem() is None or _need_grounded(case.text, ground, True) \
            or max(closest_sentence(s, ground.passages) for s in _asked(case.text)) \
            >= REQUEST_SIMILARITY or _carried(case.text, rescued, case, ground):
        return None
    return f"{rescued.problem()}; no sentence of the request is about the passage"


def _counterpart(changed: Quantity, other: Quantity) -> bool:
    """``other`` (a passage number) may be what ``changed`` replaced: the same kind, or a
    unit on one side only ("16 years old" for "18 or over", "aged 16" for "18 years")."""
    return changed.dimension is None or other.dimension is None \
        or changed.dimension == other.dimension


def _number_facts(missing: Sequence[Quantity]) -> int:
    """How many facts the changed numbers are: numbers of one kind are one fact, and a
    number without a unit that repeats a changed number's value is that number."""
    kinds = {q.dimension for q in missing if q.dimension is not None}
    valued = {q.value for q in missing if q.dimension is not None}
    bare = {q.value for q in missing if q.dimension is None and q.value not in valued}
    return len(kinds) + (1 if bare else 0)


def _changed_slots(text: str, found: Ungrounded, passages: Sequence[str]) -> int | None:
    """How many facts of the claim its passages do not hold (adjacent names are one fact,
    numbers of one kind are one fact); None when one has no passage counterpart (a number
    the passage gives nothing like, a name where the passage names nothing)."""
    prepared = [evidence(p) for p in passages if p]
    numbers = [q for p in prepared for q in p.numbers]
    missing = [q for q in quantities(text) if str(q) in found.numbers]
    if any(not any(_counterpart(q, other) for other in numbers) for q in missing):
        return None
    claim_names = {n.lower() for n in names(text)}
    if found.names and not any(n.lower() not in claim_names
                               for p in passages for n in names(p)):
        return None
    groups = 0
    for name in found.names:  # "Sergei Winogradsky": one fact
        joined = re.search(rf"[A-Z][\w'’-]*\s+{re.escape(name)}\b", text)
        if not (joined and joined.group().split()[0] in found.names):
            groups += 1
    return groups + _number_facts(missing)


def _refuted(case: Case, ground: Ground) -> str | None:
    found = ground.missing(case.text)
    if found.problem() is None:
        return None
    slots = _changed_slots(case.text, found, ground.passages)
    if slots is None or slots > 1:
        return f"{found.problem()}; a refuted claim changes one fact of its passage"
    if found.words_ok():
        return None
    from irforge.check.semantic import CLAIM_SIMILARITY, closest_sentence

    rescued = _words(case.text, ground, rescue=True)
    if rescued.words_ok() or closest_sentence(case.text, ground.passages) >= CLAIM_SIMILARITY:
        return None
    return f"{rescued.problem()}; the claim is not about what its passage says"


def core_case(case: Case) -> Case:
    """An instructed query's core query as a query of its own: its text, and the form and
    stance the core was written in (``core_form``, ``core_stance``; none recorded: strict)."""
    core = case.meta.get("core_query")
    text = core if isinstance(core, str) and core.strip() else case.text
    query = replace(case.query, text=text, metadata=core_form(case.meta))
    return replace(case, query=query, fields={"text": text})


def _core(case: Case, ground: Ground) -> str | None:
    """The core query grounded by its own form's rule (a refuted claim by the fact it
    contradicts, a persona request with its asker's details excused); the instruction is
    the instruction rules' to check."""
    core = core_case(case)
    rule = form_grounding(core)
    return RULES["strict" if rule == "core" else rule](core, ground)


#: grounding rule name (forms.yaml ``grounding``) -> the rule
RULES: dict[str, Callable[[Case, Ground], str | None]] = {
    "strict": _strict, "persona": _persona, "refuted": _refuted, "core": _core,
}


def grounding_problem(case: Case, ground: Ground) -> str | None:
    """What of the query its passages do not ground, by its form's rule (None: grounded)."""
    return RULES[form_grounding(case)](case, ground)


@validator("grounding.query")
def check_query(case: Case, context: Context) -> Iterator[Finding]:
    """Every name and number, and most content words, of the query occur in its passages,
    as its declared form grounds them (a persona's context, a refuted claim's changed fact,
    an instructed query's core: irforge.check.form_grounding)."""
    grounds = list(case.grounds)
    generated = [d for d in grounds if d.metadata.get("generated")]
    for doc in generated:  # a generated passage grounds nothing by itself: add its seed
        seed = context.docs.get(str(doc.metadata.get("seed_doc_id", "")))
        if seed is not None:
            grounds.append(seed)
    if not grounds:
        return
    supported_claim = _is_claim(case) and form_grounding(case) != "refuted"
    documents = context.document_labels if supported_claim else context.documents
    names_from = names_context(grounds, documents)
    if not supported_claim:  # the collection's topic names ('Debian' of a Debian guide)
        topics = topics_text(grounds, context.collection_topics, context.docs)
        names_from = (*names_from, topics) if topics else names_from
    ground = Ground(tuple(labelled(doc) for doc in grounds), context.aliases,
                    names_from, own_wording(case, context.profile))
    problem = grounding_problem(case, ground)
    if problem:
        where = ", ".join(d.doc_id for d in case.grounds)
        yield Finding("grounding.query", "text", f"not in its relevant passage(s) {where}: "
                      f"{problem}", "ground the query in its passage (or fix its qrels); "
                      "invented names and numbers measure nothing")
