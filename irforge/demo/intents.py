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


def demo_intent(intent: Any) -> Any:
    """The intent as the demo runs it with a small model: the need is a seed sentence picked
    by id, the query prompt shows no worked example (the embedded model repeats the
    built-in prompts' examples, which the echo check rejects), and it is asked for the
    intent's first declared form only (a question, a supported claim)."""
    from irforge.generators.intents.steps import PICK_NEED_TEMPLATE

    return intent.model_copy(update={"needs_template": PICK_NEED_TEMPLATE,
                                     "query_template": "intents.sentence_query",
                                     "forms": intent.forms[:1]})


def seed_controls(seed: int = 0) -> list[Any]:
    """Controls from the hand-written QA/FC seed queries of the sample corpus (verified: each
    judged 2 on its document) over the sample documents: the demo's judge is tested on them."""
    from irforge.data.sample import sample_docs, sample_qrels, sample_queries
    from irforge.generators.controls import ControlSource, make_controls

    relevant = {q.query_id: q.doc_id for q in sample_qrels() if q.relevance >= 2}
    sources = [ControlSource(q.query_id, q.text, relevant[q.query_id], q.metadata.get("intent"),
                             None, q.metadata.get("answer"))
               for q in sample_queries() if q.metadata.get("intent") in DEMO_INTENTS
               and q.query_id in relevant]
    return make_controls(sources, sample_docs(), seed=seed)


def run_intents_demo(bench: Benchmark, model: str | None, cache: Path | None = None) -> str:
    """Generate, label and summarise; returns the one-line summary the demo prints."""
    from irforge.cli.options import grade_note
    from irforge.generators.intents import (
        ChosenTaxonomy,
        build_intents,
        load_intents,
        load_taxonomy,
    )
    from irforge.generators.intents.config import Taxonomy
    from irforge.generators.relevance import LabelSettings, label_benchmark
    from irforge.generators.relevance.probabilities import TOP_LOGPROBS
    from irforge.llm import Engine
    from irforge.steps.runner import BuildRunner

    full = load_taxonomy()
    taxonomy = Taxonomy(name="disastir-demo", categories=[
        c for c in full.categories if c.key in DEMO_CATEGORIES])
    intents = load_intents()
    docs = list(bench.corpus())
    seeds = [doc for doc in docs if doc.doc_id[:3] in DISASTER_DOCS]
    with Engine(model=model, cache_path=cache, max_tokens=200, progress=False) as engine:
        built = build_intents(BuildRunner.open(engine, bench.root, "intents"), docs,
                              [demo_intent(intents[n]) for n in DEMO_INTENTS],
                              ChosenTaxonomy(taxonomy), per_task=1, seed=0, seeds=seeds)
        manifest = {"build": built.manifest(), "build_engine": engine.manifest_entry()}
    with Engine(model=model, cache_path=cache, max_tokens=40, progress=False,
                logprobs=TOP_LOGPROBS) as engine:
        queries = [q for q in bench.queries() if q.query_id != HAND_QUERY.query_id]
        bench.write_queries([*queries, HAND_QUERY])
        pool_rows: list[dict[str, Any]] = [{"query_id": HAND_QUERY.query_id,
                                            "doc_ids": [first_passage(docs, doc_id) for doc_id in
                                                        HAND_POOL]}]
        for query in queries:
            if query.metadata.get("generated_by") == "intents":
                pool_rows.append({"query_id": query.query_id,
                                  "doc_ids": [query.metadata["seed_doc_id"]]})
        pool = bench.root / "intents" / "demo_pool.jsonl"
        write_jsonl(pool, pool_rows)
        labeled = label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [pool],
                                  intents, LabelSettings(), extra_controls=seed_controls())
        labels = labeled.manifest()
        # the build's own manifest entry ("intents", written by the build runner) carries the
        # generation yield the demo's closing table and its empty check read; this entry
        # repeats no yield, so no step is counted twice
        bench.record_step("demo.intents", {**manifest, "label": labels,
                                           "label_engine": engine.manifest_entry()})
        note = grade_note(engine.demo_grade)
    typer.echo(built.yields.render())
    typer.echo(labeled.yields.render())
    counts = labeled.counts
    judge = _say_controls(bench, counts)
    made = built.counts
    return (f"{made['queries']}/{made['planned']} queries generated for "
            f"{'+'.join(DEMO_INTENTS)} x "
            f"{len(taxonomy.categories)} categories; {counts['pairs']} pairs labeled with 3 "
            f"strategies -> {counts['judgments_written']} judgments, {counts['qrels']} qrels, "
            f"{counts['flagged']} generated passages flagged; judge controls "
            f"{judge['status']} ({_ensemble_figures(judge)}); failures in "
            f"{bench.failures_path.name}{note}")


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
