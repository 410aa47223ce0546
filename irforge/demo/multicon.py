"""The MultiConIR stage of ``make demo``: a few shipped sample documents per domain, small N."""

from __future__ import annotations

from pathlib import Path

from irforge.generators.multicon.build import MulticonConfig
from irforge.generators.multicon.cli import build_multicon
from irforge.generators.multicon.domains import get_domain

# Sample-corpus file names carry their kind; each kind maps to a built-in domain.
DEMO_DOMAINS: dict[str, str] = {"-novel-": "books", "-film-": "movies", "-case-": "medical"}
DEMO_N = 3
DEMO_DOCS_PER_DOMAIN = 1


def demo_stage(out: Path, model: str | None = None) -> str:
    """Build one small MultiConIR benchmark per domain under ``out/multicon/<domain>``."""
    from irforge.llm import Engine
    from irforge.sample import sample_docs

    docs = sample_docs()
    parts = []
    with Engine(model, cache_path=Path(out) / ".irforge" / "cache.sqlite",
                max_tokens=384) as engine:
        for marker, domain in DEMO_DOMAINS.items():
            chosen = [d for d in docs if marker in d.doc_id][:DEMO_DOCS_PER_DOMAIN]
            if not chosen:
                continue
            config = MulticonConfig(domain=get_domain(domain), n=DEMO_N)
            counts = build_multicon(Path(out) / "multicon" / domain, chosen, config, engine,
                                    source="irforge sample corpus")
            parts.append(f"{domain}: {counts['sources']}/{len(chosen)} source(s), "
                         f"{counts['docs']} docs, {counts['queries']} queries, "
                         f"{counts['failures']} failure(s)")
        grade = " (embedded demo-grade model: most items are expected to fail validation)" \
            if engine.demo_grade else ""
    return f"multicon n={DEMO_N} -> {Path(out) / 'multicon'}: " + "; ".join(parts) + grade
