"""The MultiConIR stage of ``make demo``: a few shipped sample documents per domain, small N.

Each domain's build prints its yield table; a domain that keeps no document is reported with
its reasons and the stage goes on, but a stage that keeps nothing at all fails (exit 3).
"""

from __future__ import annotations

from pathlib import Path

import typer

from irforge.core.errors import EmptyResultError

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


def demo_stage(out: Path, model: str | None = None, api_base: str | None = None) -> str:
    """Build one small MultiConIR benchmark per domain under ``out/multicon/<domain>``, each
    by ``Method.run``."""
    from irforge.data.sample import sample_corpus_dir, sample_docs
    from irforge.generators.multicon.method import METHOD, Config
    from irforge.llm import Engine
    from irforge.steps.method import Inputs
    from irforge.steps.runner import BuildRunner, target_line

    docs = sample_docs()
    parts, kept, attempted = [], 0, 0
    with Engine(model, api_base=api_base, cache_path=Path(out) / ".irforge" / "cache.sqlite",
                max_tokens=DEMO_MAX_TOKENS) as engine:
        for marker, domain in DEMO_DOMAINS.items():
            chosen = [d for d in docs if marker in d.doc_id][:DEMO_DOCS_PER_DOMAIN]
            if not chosen:
                continue
            attempted += len(chosen)
            config = Config(domain=domain, n=DEMO_N, strategy=DEMO_STRATEGY,
                            phrases=DEMO_PHRASES, limit=None)
            typer.echo(f"[demo:multicon] {domain}:")
            runner = BuildRunner.open(engine, Path(out) / "multicon" / domain, "multicon")

            def show(_: object, runner: BuildRunner = runner) -> None:
                typer.echo(runner.yields.render())
                if target_line(runner.validation()):
                    typer.echo(target_line(runner.validation()))

            try:
                counts = METHOD.run(runner, config, Inputs(sample_corpus_dir(),
                                                           docs=tuple(chosen)), show).counts
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
