"""Stopwords, one module for every list: per language, the words that carry no content of
their own in a query or a passage, and the named vocabularies some rules add to them.

English is the one language with a list today; :func:`stopwords` names the others as
missing instead of guessing. Rules that need more or fewer words say so with the named sets
below, never with a list of their own:

- :data:`FILLERS` (a subset): words whose presence never changes what a query asks; the
  near-duplicate key (:mod:`irforge.check.duplicates`) drops only these, so "X before Y" and
  "X after Y", or "X with Y" and "X without Y", stay different queries.
- :data:`REQUEST_WORDS`: the frame of a search request ("find documents that...");
  not content in a query (``irforge check``'s rules drop them too).
- :data:`VAGUE_TERMS`: counts, ordinals and general verbs that never name a topic (the
  domain profile drops them when it names a cluster).
"""

from __future__ import annotations

from irforge.core.errors import IrforgeError

_ENGLISH = """
a about above actually after again against all also am an and any anyone anything are aren't as
at be because been before being below between both but by can can't cannot could couldn't did
didn't do does doesn't doing don't down during each either else etc ever every exactly few for
from further generally get gets got had hadn't has hasn't have haven't having he her here hers
herself him himself his how however i if in into is isn't it it's its itself just let lets like
made make makes many may me might more most much must my myself neither no nor not now of off
often on once one only onto or other ought our ours ourselves out over own per please possible
possibly rather really same shall she should shouldn't so some someone something such than that
that's the their theirs them themselves then there these they thing things this those though
through thus to too typically under until up upon us use used uses using usually very via was
wasn't way ways we were weren't what when where whether which while who whom whose why will
with within without would wouldn't yes yet you your yours yourself yourselves
"""
ENGLISH = frozenset(_ENGLISH.split())

#: words that never change what a query asks (articles, auxiliaries, the commonest
#: prepositions and question words): dropped by the near-duplicate key
_FILLERS = """
a about an and any are at be by did do does for from how i in is me my of on or some that the
these this those to was were what which who with
"""
FILLERS = frozenset(_FILLERS.split())

#: the frame of a search request: not content in a query
_REQUEST_WORDS = """
find tell know show explain describe give want need looking look search document documents
passage passages article articles information info answer answers question questions query kind
kinds type types people person claim claims statement sentence text meet meets meeting satisfy
satisfies condition conditions criteria requirement requirements following
"""
REQUEST_WORDS = frozenset(_REQUEST_WORDS.split())

#: counts, ordinals and general verbs: never the name of a topic
_VAGUE_TERMS = """
eight first five four new nine second seven six take taken takes ten three two well
"""
VAGUE_TERMS = frozenset(_VAGUE_TERMS.split())

_LISTS: dict[str, frozenset[str]] = {"en": ENGLISH}


def stopwords(language: str = "en") -> frozenset[str]:
    """The stopword list of ``language`` (an ISO 639-1 code, e.g. ``en``)."""
    found = _LISTS.get(language.lower())
    if found is None:
        raise IrforgeError(f"no stopword list for language {language!r}; irforge has "
                           f"{', '.join(sorted(_LISTS))} (irforge/core/stopwords.py)")
    return found
