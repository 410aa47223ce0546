"""The MultiConIR stage of ``make demo``: a few shipped sample documents per domain, small N.

Each domain's build prints its yield table; a domain that keeps no document is reported with
its reasons and the stage goes on, but a stage that keeps nothing at all fails (exit 3).
"""

from __future__ import annotations

from pathlib import Path

import typer

from irforge.core.errors import EmptyResultError
from irforge.generators.multicon.build import MulticonConfig
from irforge.generators.multicon.domains import get_domain
from irforge.generators.multicon.folder import build_multicon

# Sample-corpus file names carry their kind; each kind maps to a built-in domain.
DEMO_DOMAINS: dict[str, str] = {"-novel-": "books", "-film-": "movies", "-case-": "medical"}
DEMO_N = 3
DEMO_DOCS_PER_DOMAIN = 2
DEMO_MAX_TOKENS = 384
# hard negatives by construction (one key term replaced): the embedded model mostly returns
# the sentence unchanged when asked to rewrite it freely
DEMO_STRATEGY = "substitute"
# condition phrases by construction (key terms picked from a list): the embedded model copies
# the whole sentence when asked to shorten it
DEMO_PHRASES = "pick"


def demo_stage(out: Path, model: str | None = None) -> str:
    """Build one small MultiConIR benchmark per domain under ``out/multicon/<domain>``."""
    from irforge.data.sample import sample_docs
    from irforge.llm import Engine

    docs = sample_docs()
    parts, kept, attempted = [], 0, 0
    with Engine(model, cache_path=Path(out) / ".irforge" / "cache.sqlite",
                max_tokens=DEMO_MAX_TOKENS) as engine:
        for marker, domain in DEMO_DOMAINS.items():
            chosen = [d for d in docs if marker in d.doc_id][:DEMO_DOCS_PER_DOMAIN]
            if not chosen:
                continue
            attempted += len(chosen)
            config = MulticonConfig(domain=get_domain(domain), n=DEMO_N, strategy=DEMO_STRATEGY,
                                    phrases=DEMO_PHRASES)
            typer.echo(f"[demo:multicon] {domain}:")
            try:
                counts = build_multicon(Path(out) / "multicon" / domain, chosen, config, engine,
                                        source="irforge sample corpus", echo=typer.echo)
            except EmptyResultError as exc:
                parts.append(f"{domain}: 0/{len(chosen)} source(s) kept ({exc})")
                continue
            kept += counts["sources"]
            parts.append(f"{domain}: {counts['sources']}/{len(chosen)} source(s), "
                         f"{counts['docs']} docs, {counts['queries']} queries, "
                         f"{counts['failures']} failure(s)")
        samples = engine.samples
    summary = (f"multicon n={DEMO_N}, best of {samples}, conditions by {DEMO_PHRASES}, "
               f"hard negatives by {DEMO_STRATEGY} -> "
               f"{Path(out) / 'multicon'}: "
               f"{kept}/{attempted} source document(s) kept; " + "; ".join(parts))
    if not kept:
        raise EmptyResultError(summary)
    return summary
