"""A collection's own topic: the names most documents of one source repeat.

A capable model writes the subject of the whole collection into a query although neither the
passage nor its document says it ('Debian' of a Debian guide page that only shows a command).
Such a name is grounded by the collection when it is the topic of the passage's source: the
documents of that source (the top folder of ``metadata.file``: one site, book or handbook
folder of a mixed corpus; root files share the root) write it in at least TOPIC_SHARE of
them, and the source has at least MIN_SOURCE_DOCS documents, so that one document or a
handful cannot make a topic. A name of another source, or one a few documents write, stays
ungrounded; the rule grounds names only, never numbers or content words.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from irforge.check.document_context import document_of, labelled
from irforge.check.text import STOPWORDS, names, without_possessive
from irforge.core.records import Doc

#: a name is the topic of its source when at least this share of the source's documents
#: write it: read off the shared real corpus, where the collection's subjects stand in a third
#: or more of their source's documents (Debian 56 and Linux 43 of the guide's 100) and the
#: next most frequent names in under a fifth (docs/capable-models.md, "Run 9 rules")
TOPIC_SHARE = 1 / 3
#: a source of fewer documents has no topic beyond each document's own
MIN_SOURCE_DOCS = 5
#: a word as written, case kept (names are compared as written, 'Windows' is not 'windows')
_TOKEN = re.compile(r"[^\W_](?:[\w'’.-]*[^\W_])?")


def source_of(doc: Doc) -> str:
    """The source a passage belongs to: the top folder of its file (``debian-guide`` of
    ``debian-guide/node5.html``); files at the root, and corpora that record no file, share
    the root ``""``."""
    path = str(doc.metadata.get("file") or "").replace("\\", "/").strip("/")
    return path.split("/", 1)[0] if "/" in path else ""


def _written(text: str) -> set[str]:
    """The words of ``text`` as written, each also without a possessive ending."""
    tokens = _TOKEN.findall(text)
    return {*tokens, *(without_possessive(t) for t in tokens)}


def _copy(doc: Doc) -> bool:
    """A generated passage or a rewrite of another passage: no document of the collection."""
    return bool(doc.metadata.get("generated") or doc.metadata.get("rewritten_from"))


def _sources(docs: Iterable[Doc], min_docs: int) -> list[tuple[Doc, str]]:
    """Each passage with its source: its top folder when that folder holds ``min_docs``
    documents or more, else the root (a site's small folders are one site)."""
    own = [(doc, source_of(doc)) for doc in docs]
    documents = {(source, document_of(doc) or doc.doc_id) for doc, source in own}
    sizes = Counter(source for source, _ in documents)
    return [(doc, source if sizes[source] >= min_docs else "") for doc, source in own]


def collection_topics(docs: Iterable[Doc], share: float = TOPIC_SHARE,
                      min_docs: int = MIN_SOURCE_DOCS) -> dict[str, frozenset[str]]:
    """Source -> the names that at least ``share`` of its documents write (sources of
    ``min_docs`` documents or more). A document is a ``metadata.doc_id`` (a passage that
    records none is a document of its own); rewrites and generated passages are left out."""
    sources = _sources((d for d in docs if not _copy(d)), min_docs)
    texts: dict[tuple[str, str], list[str]] = defaultdict(list)
    for doc, source in sources:
        texts[(source, document_of(doc) or doc.doc_id)].append(labelled(doc))
    frequency: dict[str, Counter[str]] = defaultdict(Counter)
    named: dict[str, set[str]] = defaultdict(set)
    sizes: Counter[str] = Counter()
    for (source, _), parts in texts.items():
        text = "\n".join(parts)
        sizes[source] += 1
        frequency[source].update(_written(text))
        named[source].update(without_possessive(n) for n in names(text))
    return {source: frozenset(n for n in named[source] if n.lower() not in STOPWORDS
                              and frequency[source][n] >= share * size)
            for source, size in sizes.items() if size >= min_docs}


def topics_text(passages: Sequence[Doc], topics: Mapping[str, frozenset[str]],
                docs: Mapping[str, Doc]) -> str:
    """The topic names of the passages' sources (a rewrite's: its original's), one a line:
    a text that grounds names only (empty when no source has a topic)."""
    found: set[str] = set()
    for doc in passages:
        original = docs.get(str(doc.metadata.get("rewritten_from") or ""), doc)
        source = source_of(original)
        found.update(topics[source] if source in topics else topics.get("", ()))
    return "\n".join(sorted(found))
