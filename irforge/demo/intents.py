"""The ``make demo`` stage for DisastIR-style generation and labeling on the sample corpus.

Two intents (QA, FC) x two DisastIR categories, one query per task from the disaster
documents d01-d08, then all three labeling strategies on a small pool: each query's own
positive passage and its seed passage. With the embedded model (demo grade) many items fail
validation; they are listed in failures.jsonl. One hand-written QA query is added to the pool
so the labeling step always has something to label.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from irforge.core.bench import Benchmark
from irforge.core.jsonl import write_jsonl
from irforge.core.records import Doc, Query

DEMO_INTENTS = ("QA", "FC")
DEMO_CATEGORIES = ("MH", "Geo")
DISASTER_DOCS = tuple(f"d0{i}" for i in range(1, 9))
HAND_QUERY = Query("demo_hand_qa", "At what river level does Marrowbridge get a flood warning?",
                   {"intent": "QA", "hand_written": True})

HAND_POOL = ("d01-flood-early-warning", "d04-heatwave-advisory")


def first_passage(docs: list[Doc], doc_id: str) -> str:
    """Id of ``doc_id`` in the demo corpus, or of its first passage once the corpus pipeline
    has chunked it (``<file name>_0``, the file name with its extension: ``d01-....pdf_0``);
    the labeling pool must name ids that exist."""
    ids = {doc.doc_id for doc in docs}
    if doc_id in ids:
        return doc_id
    chunks = {}
    for passage in ids:
        base, _, suffix = passage.rpartition("_")
        if suffix.isdigit() and doc_id in (base, Path(base).stem):
            chunks[int(suffix)] = passage
    if not chunks:
        raise ValueError(f"sample document {doc_id!r} is missing from the demo corpus")
    return chunks[min(chunks)]


def intents_config() -> Any:
    """The demo's intents build: QA and FC as a small model runs them (``small-model``
    query style), over DisastIR's MH and Geo categories, seeded from the disaster documents."""
    from irforge.generators.intents.method import Config

    return Config(intents=list(DEMO_INTENTS), per_task=1, taxonomy="disastir",
                  categories=list(DEMO_CATEGORIES), seed_prefixes=list(DISASTER_DOCS),
                  query_style="small-model", seed=0)


def label_config() -> Any:
    """The demo's labeling: all three strategies, its judge also tested on controls from the
    shipped hand-written QA/FC sample queries (each judged 2 on its document)."""
    from irforge.generators.relevance.method import Config

    return Config(strategies=["zero_shot", "cot", "multi_dim"], controls_from="sample")


def write_pool(bench: Benchmark, docs: list[Doc]) -> Path:
    """Add the hand-written query to the folder's queries and write the labeling pool: it
    with its two passages, each generated query with its seed passage."""
    queries = [q for q in bench.queries() if q.query_id != HAND_QUERY.query_id]
    bench.write_queries([*queries, HAND_QUERY])
    rows: list[dict[str, Any]] = [{"query_id": HAND_QUERY.query_id, "doc_ids": [
        first_passage(docs, doc_id) for doc_id in HAND_POOL]}]
    rows += [{"query_id": q.query_id, "doc_ids": [q.metadata["seed_doc_id"]]}
             for q in queries if q.metadata.get("generated_by") == "intents"]
    pool = bench.root / "intents" / "demo_pool.jsonl"
    write_jsonl(pool, rows)
    return pool


def run_reported(method: Any, runner: Any, config: Any, inputs: Any) -> tuple[Any, str | None]:
    """``Method.run`` printing the yield table; what it built and, when it stopped on an empty
    result or a judge that failed its controls (the demo reports both), why."""
    from irforge.core.errors import EmptyResultError, UntrustedLabels

    shown: list[Any] = []

    def show(built: Any) -> None:
        shown.append(built)
        typer.echo(runner.yields.render())

    try:
        method.run(runner, config, inputs, show)
    except (EmptyResultError, UntrustedLabels) as exc:
        return shown[0], str(exc)
    return shown[0], None


def run_intents_demo(bench: Benchmark, model: str | None, cache: Path | None = None,
                     api_base: str | None = None) -> str:
    """Generate and label by ``Method.run`` and summarise; returns the one-line summary the
    demo prints (an EmptyResultError when no query was generated)."""
    from irforge.cli.options import grade_note
    from irforge.core.errors import EmptyResultError
    from irforge.generators.intents.method import METHOD as INTENTS
    from irforge.generators.relevance.method import METHOD as LABEL
    from irforge.generators.relevance.method import label_logprobs
    from irforge.llm import Engine
    from irforge.steps.method import Inputs
    from irforge.steps.runner import BuildRunner

    docs = list(bench.corpus())
    config, labeling = intents_config(), label_config()
    with Engine(model=model, api_base=api_base, cache_path=cache, max_tokens=200,
                progress=False) as engine:
        built, empty = run_reported(INTENTS, BuildRunner.open(engine, bench.root, "intents"),
                                    config, Inputs(bench.corpus_path, docs=tuple(docs)))
        taxonomy, run = built.report
        manifest = {"build": run.manifest(), "build_engine": engine.manifest_entry()}
    with Engine(model=model, api_base=api_base, cache_path=cache, max_tokens=40, progress=False,
                logprobs=label_logprobs(labeling.label_probs)) as engine:
        pool = write_pool(bench, docs)
        labeled, _ = run_reported(LABEL, BuildRunner.open(engine, bench.root, "relevance"),
                                  labeling, Inputs(bench.corpus_path, pool))
        # the build's own manifest entry ("intents", written by Method.run) carries the
        # generation yield the demo's closing table and its empty check read (the labeling's
        # "relevance" entry is left out there: demo.LABELING); this entry repeats no yield
        bench.record_step("demo.intents", {**manifest, "label": labeled.report.manifest(),
                                           "label_engine": engine.manifest_entry()})
        note = grade_note(engine.demo_grade)
    counts = labeled.counts
    judge = _say_controls(bench, counts)
    made = run.counts
    summary = (f"{made['queries']}/{made['planned']} queries generated for "
               f"{'+'.join(DEMO_INTENTS)} x "
               f"{len(taxonomy.taxonomy.categories)} categories; {counts['pairs']} pairs "
               f"labeled with 3 strategies -> {counts['judgments_written']} judgments, "
               f"{counts['qrels']} qrels, {counts['flagged']} generated passages flagged; "
               f"judge controls {judge['status']} ({_ensemble_figures(judge)}); failures in "
               f"{bench.failures_path.name}{note}")
    if empty:
        raise EmptyResultError(f"{summary} ({empty})")
    return summary


def _say_controls(bench: Benchmark, counts: dict[str, Any]) -> dict[str, Any]:
    """Print the judge's control figures and, unless trusted, what that means; the entry."""
    from irforge.generators.relevance.controls import control_summary

    judge = counts["judge_controls"]
    typer.echo(control_summary(judge, counts["controls"]))
    if judge["status"] == "untrusted":
        typer.echo(f"The demo's relevance labels in {bench.qrels_path()} are UNTRUSTED: the "
                   "eval stage does not score them. A user's `irforge label` or `irforge run` "
                   "in this state exits 7.")
    elif judge["status"] == "untested":
        typer.echo(f"The demo's relevance labels in {bench.qrels_path()} are NOT VERIFIED "
                   "(too few controls to decide).")
    return judge


def _ensemble_figures(judge: dict[str, Any]) -> str:
    """``accuracy 0.50, AUC 0.48 on 16 controls`` of the deciding step."""
    step = judge.get("steps", {}).get(judge.get("deciding_step"), {})
    if not step:
        return "no control labeled"
    auc = f"{step['auc']:.2f}" if step.get("auc") is not None else "n/a"
    return f"accuracy {step['accuracy']:.2f}, AUC {auc} on {step['controls']} controls"
