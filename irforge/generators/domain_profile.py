"""What a corpus is about, derived from the corpus itself, so no method assumes the papers'
domains: term clusters of passages (TF-IDF vectors, seeded spherical k-means, each cluster named
by its top terms) and a MultiConIR domain (entity + feature list) built from them.

API: :func:`term_clusters` (used by ``build intents`` for its derived taxonomy) and
:func:`derive_domain` (a :class:`~irforge.generators.multicon.domains.Domain` for ``build
multicon`` when no ``--domain`` is given). Both are deterministic for a seed and need no model.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from irforge.core.records import Doc
from irforge.core.stopwords import ENGLISH, VAGUE_TERMS
from irforge.generators.multicon.domains import Domain

MAX_DOCS = 2000  # clusters are fitted on a seeded sample of at most this many passages
MAX_CLUSTERS = 8
TOP_TERMS = 8
#: a word of letters in any script ("café", not "caf"), with inner apostrophes and hyphens
_TOKEN = re.compile(r"[^\W\d_](?:[^\W\d_]|['-])*[^\W\d_]")
#: the language's stopwords and the counts, ordinals and general verbs that never name a topic
STOPWORDS = ENGLISH | VAGUE_TERMS


@dataclass(frozen=True)
class TermCluster:
    """Passages that share vocabulary, and the terms that set them apart (best first)."""

    terms: tuple[str, ...]
    doc_ids: tuple[str, ...]

    @property
    def label(self) -> str:
        """A readable name from the two top terms."""
        return " & ".join(self.terms[:2]) if self.terms else "passages"


def tokens(text: str) -> list[str]:
    """Lower-case content words of at least three letters, stopwords dropped."""
    return [word for word in _TOKEN.findall(text.lower())
            if len(word) >= 3 and word not in STOPWORDS]


def _vectors(docs: Sequence[Doc]) -> tuple[list[str], list[dict[int, float]]]:
    """Vocabulary and L2-normalised sublinear TF-IDF vectors (sparse dicts)."""
    counts = [Counter(tokens(f"{doc.title} {doc.text}")) for doc in docs]
    df = Counter(term for count in counts for term in count)
    n = len(docs)
    high = max(2, int(0.6 * n))
    vocab = sorted(term for term, f in df.items() if (f >= 2 or n < 4) and f <= high)
    index = {term: i for i, term in enumerate(vocab)}
    vectors = []
    for count in counts:
        vec = {index[t]: (1 + math.log(c)) * math.log((1 + n) / (1 + df[t])) + 1e-9
               for t, c in count.items() if t in index}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({i: v / norm for i, v in vec.items()})
    return vocab, vectors


def _dot(a: dict[int, float], b: dict[int, float]) -> float:
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return sum(v * large.get(i, 0.0) for i, v in small.items())


def _centroid(members: Sequence[dict[int, float]]) -> dict[int, float]:
    total: dict[int, float] = {}
    for vec in members:
        for i, v in vec.items():
            total[i] = total.get(i, 0.0) + v
    norm = math.sqrt(sum(v * v for v in total.values())) or 1.0
    return {i: v / norm for i, v in total.items()}


def _kmeans(vectors: Sequence[dict[int, float]], k: int, rng: random.Random,
            rounds: int = 20) -> list[int]:
    """Spherical k-means with k-means++ seeding; returns a cluster index per vector."""
    live = [i for i, vec in enumerate(vectors) if vec]
    centers = [dict(vectors[rng.choice(live)])]
    while len(centers) < k:
        gaps = [max(0.0, 1 - max(_dot(vectors[i], c) for c in centers)) for i in live]
        if sum(gaps) <= 0:
            break
        pick = rng.choices(live, weights=gaps)[0]
        centers.append(dict(vectors[pick]))
    assign = [0] * len(vectors)
    for _ in range(rounds):
        new = [max(range(len(centers)), key=lambda c: (_dot(vec, centers[c]), -c))
               for vec in vectors]
        if new == assign and _ > 0:
            break
        assign = new
        centers = [_centroid([vectors[i] for i in range(len(vectors)) if assign[i] == c])
                   or centers[c] for c in range(len(centers))]
    return assign


def cluster_count(n_docs: int, most: int = MAX_CLUSTERS) -> int:
    """How many clusters a corpus of ``n_docs`` passages gets: about sqrt(n/2), 1 to ``most``."""
    return max(1, min(most, round(math.sqrt(n_docs / 2))))


def term_clusters(docs: Sequence[Doc], seed: int = 0, k: int | None = None,
                  top_terms: int = TOP_TERMS) -> list[TermCluster]:
    """Passages grouped by shared vocabulary; every cluster has at least one passage.

    Fitted on a seeded sample of at most :data:`MAX_DOCS` passages; every passage then joins
    its nearest cluster (passages without a content word join none). Clusters are ordered by
    size, largest first; their top terms are the heaviest centroid terms not already leading
    an earlier cluster, so names differ.
    """
    if not docs:
        return []
    rng = random.Random(f"profile|{seed}")
    ordered = sorted(docs, key=lambda doc: doc.doc_id)
    sample = ordered if len(ordered) <= MAX_DOCS else rng.sample(ordered, MAX_DOCS)
    vocab, vectors = _vectors(sample)
    usable = sum(1 for vec in vectors if vec)
    if not usable:
        return [TermCluster((), tuple(doc.doc_id for doc in ordered))]
    k = min(k or cluster_count(usable), usable)
    assign = _kmeans(vectors, k, rng)
    centers = [_centroid([v for v, a in zip(vectors, assign, strict=True) if a == c and v])
               for c in range(max(assign) + 1)]
    centers = [c for c in centers if c]
    fitted = dict(zip((doc.doc_id for doc in sample), vectors, strict=True))
    members: dict[int, list[str]] = {c: [] for c in range(len(centers))}
    full_vocab = {t: i for i, t in enumerate(vocab)}
    for doc in ordered:
        vec = fitted.get(doc.doc_id)
        if vec is None:  # outside the fitted sample: project onto the sample's vocabulary
            vec = _centroid([{full_vocab[t]: 1.0 for t in tokens(f"{doc.title} {doc.text}")
                              if t in full_vocab}])
        if vec:
            members[max(members, key=lambda c: (_dot(vec, centers[c]), -c))].append(doc.doc_id)
    order = sorted((c for c in members if members[c]), key=lambda c: (-len(members[c]), c))
    out: list[TermCluster] = []
    leading: set[str] = set()
    for c in order:
        ranked = [vocab[i] for i, _ in sorted(centers[c].items(), key=lambda kv: (-kv[1], kv[0]))]
        fresh = [t for t in ranked if t not in leading] or ranked
        terms = tuple(fresh[:top_terms])
        leading.update(terms[:2])
        out.append(TermCluster(terms, tuple(members[c])))
    return out


def derive_domain(docs: Sequence[Doc], seed: int = 0, name: str = "derived",
                  entity: str = "document", features: int = 8) -> Domain:
    """A MultiConIR domain for a corpus no built-in domain fits: the entity noun (default
    ``document``) and, as the feature list, each term cluster's top terms ("t1, t2 and t3"),
    so condition extraction is steered by what the corpus talks about, not by books or films.

    Raises ``ValueError`` when
    the corpus has no content word to derive features from.
    """
    clusters = term_clusters(docs, seed)
    found: list[str] = []
    for cluster in clusters:
        if cluster.terms:
            found.append(", ".join(cluster.terms[:2]) + f" and {cluster.terms[2]}"
                         if len(cluster.terms) >= 3 else " and ".join(cluster.terms))
    if len(found) < features:  # few clusters: single top terms fill the list
        extra = [t for cluster in clusters for t in cluster.terms[3:]]
        found += [t for t in extra if t not in found][:features - len(found)]
    if not found:
        raise ValueError("the corpus has no content word to derive a feature list from; "
                         "pass --domain or a --domains file")
    return Domain(name=name, entity=entity, features=tuple(found[:features]), corpus_terms=True)
