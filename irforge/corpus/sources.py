"""Choosing generation sources from the whole corpus: what every method draws from.

Every passage is measured once (:class:`Features`: sentences, informative sentences, names,
numbers, sentences relating two named things). Rejection rules (:data:`REJECTIONS`) turn
away what is not worth asking about (too short, not prose, contents/index/licence/boilerplate
pages); a scorer of :data:`SCORERS`, chosen by what the method needs, ranks the rest. The
choice is spread over documents and their sections: round after round, each document gives
its best passage from a section not used yet, so the first N passages of the corpus are never
simply taken. MultiConIR's sources are documents (passages grouped by ``doc_id``, in order)
with enough distinct attribute sentences. Every candidate gets a :class:`SourceChoice` with
its score and why it was chosen or rejected. Ties are broken by a hash of the seed and the
id: the same corpus and seed give the same choice.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from irforge.core.records import Doc
from irforge.core.stopwords import ENGLISH
from irforge.corpus.entities import entities
from irforge.corpus.sentences import sentence_spans

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_STOP = ENGLISH  # the one English stopword list (core/stopwords.py)
_BOILERPLATE = re.compile(
    r"\b(?:licen[cs]e[ds]?|warrant(?:y|ies)|copyright|all rights reserved|liabilit(?:y|ies)|"
    r"terms of (?:use|service)|privacy policy|cookies?|redistribut\w*|permission is granted|"
    r"project gutenberg|trademark|disclaimer|subscribe|newsletter|sign up|log ?in)\b",
    re.IGNORECASE)
_LICENCE_WORDS = (r"gnu|general|public|lesser|library|free|documentation|software|mit|bsd|"
                  r"apache|mozilla|creative|commons|open|source|end-user|end user|eula")
_NOT_SOURCE_TITLE = re.compile(
    r"^(?:(?:table of )?contents|(?:general |subject )?index|footnotes?|about this document.*|"
    r"colophon|acknowledge?ments?|terms of (?:use|service)|privacy policy|licensing|"
    r"copyright(?: notice| and licen[cs]e)?|"
    rf"(?:the )?(?:(?:{_LICENCE_WORDS}) ){{0,4}}licen[cs]e(?: agreement)?(?:,? version [\d.]+)?)"
    r"\W*$", re.IGNORECASE)
_PAGE_REF = re.compile(r"(?<=[,;])\s*\d{1,4}(?:\s*[\u2013-]\s*\d{1,4})?(?=[,;.]|\s|$)")
MIN_WORDS = 25
MIN_INDEX_REFS = 6  # "Bassoon, 74, 82, 99": an index entry's page numbers after commas
MAX_PAGE_REF_SHARE = 0.2
MIN_SENTENCES = 2
MAX_BOILERPLATE_SHARE = 0.34


@dataclass(frozen=True)
class Features:
    """What the scorers and rejection rules read of one passage (or document)."""

    words: int
    sentences: int
    informative: int  # sentences of 6+ words with 3+ content words, ending like a sentence
    names: int
    numbers: int  # numbers and quantities
    relations: int  # sentences naming two or more things
    boilerplate: int  # sentences with licence, legal or site-chrome words
    attributes: int  # distinct informative sentences that name a thing or a number
    labels: tuple[str, ...] = ()  # the title and section path
    page_refs: int = 0  # numbers right after a comma or semicolon, as an index lists pages


def _content(sentence: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(sentence) if w.lower() not in _STOP)


def features(text: str, labels: Sequence[str] = ()) -> Features:
    """Measure one text (a passage, or a document's passages joined)."""
    sentences = [text[s:e] for s, e in sentence_spans(text)]
    informative = relations = boilerplate = 0
    attributes: set[frozenset[str]] = set()
    names = numbers = 0
    for sentence in sentences:
        found = entities(sentence)
        named = sum(entity.kind == "name" for entity in found)
        counted = len(found) - named
        names += named
        numbers += counted
        content = _content(sentence)
        useful = (len(sentence.split()) >= 6 and len(content) >= 3
                  and sentence.rstrip()[-1:] in ".!?:;\"'”)")
        informative += useful
        relations += len(found) >= 2
        boilerplate += bool(_BOILERPLATE.search(sentence))
        if useful and found:
            attributes.add(content)
    return Features(len(text.split()), len(sentences), informative, names, numbers,
                    relations, boilerplate, len(attributes), tuple(labels),
                    page_refs=len(_PAGE_REF.findall(text)))


Rejection = Callable[[Features], "str | None"]


def too_short(f: Features) -> str | None:
    if f.words < MIN_WORDS or f.sentences < MIN_SENTENCES:
        return f"too short ({f.words} words, {f.sentences} sentences)"
    return None


def not_prose(f: Features) -> str | None:
    if f.informative < MIN_SENTENCES:
        return (f"not prose: {f.informative} informative sentence(s) of {f.sentences} "
                "(a list, table, code or contents)")
    return None


def contents_or_licence_page(f: Features) -> str | None:
    for label in f.labels:
        last = label.split(" > ")[-1].strip()
        if last and _NOT_SOURCE_TITLE.match(last):
            return f"a {last!r} page or section (contents, index, licence or colophon)"
    return None


def index_entries(f: Features) -> str | None:
    """A book index read by structure, whatever its heading: terms followed by comma lists
    of page numbers ("Viola, 74, 77, 82"), the numbers a fifth or more of its words."""
    if f.page_refs >= MIN_INDEX_REFS and f.page_refs / max(1, f.words) >= MAX_PAGE_REF_SHARE:
        return (f"an index: {f.page_refs} page numbers in comma lists among {f.words} words")
    return None


def boilerplate(f: Features) -> str | None:
    if f.sentences and f.boilerplate / f.sentences > MAX_BOILERPLATE_SHARE:
        return (f"boilerplate: {f.boilerplate} of {f.sentences} sentences are licence, "
                "legal or site text")
    return None


REJECTIONS: dict[str, Rejection] = {
    "contents_or_licence_page": contents_or_licence_page,
    "index_entries": index_entries,
    "too_short": too_short,
    "not_prose": not_prose,
    "boilerplate": boilerplate,
}

Scorer = Callable[[Features], float]


def informative_score(f: Features) -> float:
    """Informative sentences, and named things and numbers a question can ask about."""
    return f.informative + 0.5 * min(f.names, 10) + 0.5 * min(f.numbers, 6)


def logical_score(f: Features) -> float:
    """Logical queries need named things and the relations between them."""
    return 2.0 * f.relations + 0.5 * min(f.names, 12) + 0.3 * min(f.numbers, 6) \
        + 0.5 * f.informative


def attribute_score(f: Features) -> float:
    """MultiConIR needs many distinct attribute sentences in one document."""
    return f.attributes + 0.1 * f.informative


SCORERS: dict[str, Scorer] = {
    "informative": informative_score,
    "logical": logical_score,
    "attributes": attribute_score,
}


@dataclass(frozen=True)
class SourceChoice:
    """One candidate source: a passage, or a document (``passage_ids`` in order), its score
    under the method's scorer, and why it was chosen (its rank) or rejected."""

    source_id: str
    doc_id: str
    passage_ids: tuple[str, ...]
    section: str
    score: float
    chosen: bool
    reason: str
    rank: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "passage_ids": list(self.passage_ids)}


@dataclass(frozen=True)
class Selection:
    """The chosen sources in rank order and every rejected candidate with its reason."""

    chosen: list[SourceChoice] = field(default_factory=list)
    rejected: list[SourceChoice] = field(default_factory=list)

    def reasons(self) -> dict[str, int]:
        """Rejected candidates counted by reason kind (the text before the first ':' or '(')."""
        counts: dict[str, int] = defaultdict(int)
        for choice in self.rejected:
            counts[re.split(r"[:(]", choice.reason, maxsplit=1)[0].strip()] += 1
        return dict(sorted(counts.items(), key=lambda item: -item[1]))


def _tie(seed: int, key: str) -> str:
    return hashlib.sha1(f"{seed}:{key}".encode()).hexdigest()


def _labels(doc: Doc) -> tuple[str, ...]:
    section = str(doc.metadata.get("section") or "")
    return tuple(label for label in (doc.title, section) if label)


def _judge(source_id: str, doc_id: str, ids: tuple[str, ...], section: str, f: Features,
           scorer: Scorer) -> SourceChoice:
    for name, rule in REJECTIONS.items():
        reason = rule(f)
        if reason:
            return SourceChoice(source_id, doc_id, ids, section, 0.0, False,
                                f"{name}: {reason}")
    return SourceChoice(source_id, doc_id, ids, section, round(scorer(f), 3), True, "")


def _scorer(need: str) -> Scorer:
    if need not in SCORERS:
        raise ValueError(f"unknown source need {need!r}; known: {', '.join(SCORERS)}")
    return SCORERS[need]


def select_passages(docs: Iterable[Doc], count: int, need: str = "informative",
                    seed: int = 0) -> Selection:
    """``count`` passages ranked by ``need`` (a :data:`SCORERS` name), spread over documents
    and sections; the rest are recorded as rejected with their reason."""
    scorer = _scorer(need)
    judged = [_judge(doc.doc_id, str(doc.metadata.get("doc_id") or doc.doc_id), (doc.doc_id,),
                     str(doc.metadata.get("section") or ""), features(doc.text, _labels(doc)),
                     scorer) for doc in docs]
    return _spread([c for c in judged if c.chosen], [c for c in judged if not c.chosen],
                   count, seed, need)


def _spread(candidates: list[SourceChoice], rejected: list[SourceChoice], count: int,
            seed: int, need: str) -> Selection:
    """Round robin over documents (best document first), each giving its best passage from a
    section it has not given yet; what is left over is rejected as ranked below the cut."""
    by_doc: dict[str, list[SourceChoice]] = defaultdict(list)
    for choice in sorted(candidates, key=lambda c: (-c.score, _tie(seed, c.source_id))):
        by_doc[choice.doc_id].append(choice)
    used: dict[str, set[str]] = defaultdict(set)
    chosen: list[SourceChoice] = []
    while len(chosen) < count and any(by_doc.values()):
        heads = []
        for doc_id, pool in by_doc.items():
            if pool:
                fresh = [c for c in pool if c.section not in used[doc_id]]
                heads.append((fresh or pool)[0])
        heads.sort(key=lambda c: (-c.score, _tie(seed, c.source_id)))
        for head in heads[:count - len(chosen)]:
            by_doc[head.doc_id].remove(head)
            used[head.doc_id].add(head.section)
            where = f"section {head.section!r}" if head.section else "no section"
            chosen.append(SourceChoice(
                head.source_id, head.doc_id, head.passage_ids, head.section, head.score, True,
                f"{need} score {head.score:g}; pick {len(used[head.doc_id])} of its document "
                f"({where})", rank=len(chosen) + 1))
    below = [SourceChoice(c.source_id, c.doc_id, c.passage_ids, c.section, c.score, False,
                          f"below the cut: {need} score {c.score:g}, {count} sources asked")
             for pool in by_doc.values() for c in pool]
    return Selection(chosen, rejected + below)


def group_documents(docs: Iterable[Doc]) -> list[tuple[str, list[Doc]]]:
    """Passages grouped by their document (``metadata.doc_id``, else the id before the last
    ``_``), documents in corpus order, passages in order within each."""
    groups: dict[str, list[Doc]] = {}
    for doc in docs:
        doc_id = str(doc.metadata.get("doc_id") or doc.doc_id.rsplit("_", 1)[0])
        groups.setdefault(doc_id, []).append(doc)
    return list(groups.items())


def select_documents(docs: Iterable[Doc], count: int, min_attributes: int = 5,
                     seed: int = 0) -> Selection:
    """``count`` whole documents with at least ``min_attributes`` distinct attribute sentences
    (MultiConIR's sources), best first; the rest recorded with their reason and score (so a
    corpus with too few can say which came closest)."""
    chosen: list[SourceChoice] = []
    rejected: list[SourceChoice] = []
    for doc_id, passages in group_documents(docs):
        kept = [p for p in passages if not _passage_rejection(p)]
        ids = tuple(p.doc_id for p in kept)
        title = passages[0].title
        if not kept:
            rejected.append(SourceChoice(doc_id, doc_id, (), title, 0.0, False,
                                         "no passage worth reading: "
                                         + _passage_rejection(passages[0])))
            continue
        f = features("\n\n".join(p.text for p in kept), (title,))
        score = round(attribute_score(f), 3)
        if f.attributes < min_attributes:
            rejected.append(SourceChoice(doc_id, doc_id, ids, title, score, False,
                                         f"too few attributes: {f.attributes} distinct "
                                         f"attribute sentences, {min_attributes} needed"))
        else:
            chosen.append(SourceChoice(doc_id, doc_id, ids, title, score, True, ""))
    chosen.sort(key=lambda c: (-c.score, _tie(seed, c.source_id)))
    ranked = [SourceChoice(c.source_id, c.doc_id, c.passage_ids, c.section, c.score, True,
                           f"{c.score:g} attribute score over {len(c.passage_ids)} passages",
                           rank=i + 1) for i, c in enumerate(chosen[:count])]
    below = [SourceChoice(c.source_id, c.doc_id, c.passage_ids, c.section, c.score, False,
                          f"below the cut: attribute score {c.score:g}, {count} asked")
             for c in chosen[count:]]
    rejected.sort(key=lambda c: -c.score)
    return Selection(ranked, rejected + below)


def _passage_rejection(doc: Doc) -> str:
    f = features(doc.text, _labels(doc))
    for name, rule in REJECTIONS.items():
        if name == "too_short":
            continue  # a document's short passages still hold its attributes
        reason = rule(f)
        if reason:
            return f"{name}: {reason}"
    return ""


def domain_sample(docs: Iterable[Doc], size: int = 12, seed: int = 0) -> list[Doc]:
    """The best passage of each of ``size`` documents spread evenly over the corpus (by
    corpus order): a sample that describes the corpus's domain, not its first pages."""
    groups = group_documents(docs)
    step = max(1.0, len(groups) / max(1, size))
    spread = list(dict.fromkeys([int(i * step) for i in range(min(size, len(groups)))]
                                + list(range(len(groups)))))
    out: list[Doc] = []
    for index in spread:  # evenly spaced first; a document with nothing worth it is replaced
        if len(out) == size:
            break
        passages = groups[index][1]
        chosen = select_passages(passages, 1, "informative", seed).chosen
        if chosen:
            out.append(next(p for p in passages if p.doc_id == chosen[0].source_id))
    return out


def corpus_sample(docs: Sequence[Doc], size: int = 16, seed: int = 0) -> list[Doc]:
    """The best passage of each of ``size`` equal runs of the passages worth generating from
    (corpus order): a sample in proportion to where the corpus's text is, so a long book
    shows as many passages as many short pages together; the same for a corpus and seed."""
    selection = select_passages(docs, len(docs), "informative", seed)
    order = {doc.doc_id: index for index, doc in enumerate(docs)}
    chosen = sorted(selection.chosen, key=lambda choice: order[choice.source_id])
    runs = min(size, len(chosen))
    by_id = {doc.doc_id: doc for doc in docs}
    picks = [max(chosen[run * len(chosen) // runs:(run + 1) * len(chosen) // runs],
                 key=lambda choice: (choice.score, _tie(seed, choice.source_id)))
             for run in range(runs)]
    return [by_id[choice.source_id] for choice in picks]
