"""What each recipe stage does, in this process, with typed configs (no argv, no CLI app).

A stage kind is one function ``(ctx, stage) -> detail`` in :data:`ACTIONS`; it raises an
:class:`~irforge.core.errors.IrforgeError` to fail (its ``exit_code`` becomes the stage's).
LLM stages open one engine each (``RunContext.engine``: its own accounting, the run's one
cache connection, pool of requests in flight and rate limits, irforge/llm/shared.py), build on a
:class:`~irforge.steps.runner.BuildRunner` sharing the run's one
:class:`~irforge.steps.gates.QueryGates`, and add what the engine spent to the run's total.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irforge.core.errors import IrforgeError

if TYPE_CHECKING:
    from irforge.llm.shared import RunShare
    from irforge.recipe.model import Recipe
    from irforge.steps.gates import QueryGates

CACHE = Path(".irforge") / "cache.sqlite"
LLM_KINDS = frozenset({"build", "label"})


@dataclass(frozen=True)
class Stage:
    """One stage: its name, kind, method, the typed config it runs with, and its needs."""

    name: str
    kind: str
    config: Mapping[str, Any]
    needs: tuple[str, ...] = ()
    method: str | None = None

    @property
    def digest(self) -> str:
        text = json.dumps({"kind": self.kind, "config": self.config}, sort_keys=True,
                          default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def llm(self) -> bool:
        return self.kind in LLM_KINDS


@dataclass
class RunContext:
    """What the stages of one run share: the recipe, the folder, the gates and the money."""

    recipe: Recipe
    out: Path
    rebuilt: frozenset[str] = frozenset()  # methods whose folders this run writes again
    spent_usd: float = 0.0
    costs: dict[str, float] = field(default_factory=dict)  # stage -> dollars
    requests: dict[str, int] = field(default_factory=dict)  # stage -> LLM requests sent
    _gates: QueryGates | None = None
    _share: RunShare | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # method -> set once its build stage ended, in the order the methods decide queries
    _deciding: dict[str, threading.Event] = field(default_factory=dict)

    def gates(self) -> QueryGates:
        """The run's one gate index: the corpus language, the queries of method folders
        this run does not rebuild; every build stage of every method admits into it."""
        from irforge.check.query_rules import corpus_language
        from irforge.core import beir
        from irforge.methods.registry import registry
        from irforge.steps.gates import QueryGates

        with self._lock:
            if self._gates is None:
                texts = (doc.text for doc in beir.read_corpus(self.out / "corpus.jsonl"))
                others = [self.out / name for name in registry()
                          if name not in self.rebuilt and (self.out / name).is_dir()]
                gates = QueryGates.for_benchmark(self.out, corpus_language(texts),
                                                 folders=others)
                self._gates = gates
            return self._gates

    def order_gates(self, methods: Sequence[str]) -> None:
        """Methods that build beside each other decide their queries in this order: each
        one's gates wait for the ones before it to end, so which of them keeps a query two
        wrote depends on the order, never on timing (docs/recipe.md "Gates across methods")."""
        self._deciding = {method: threading.Event() for method in methods}

    def gates_for(self, method: str) -> QueryGates:
        """The run's gates as ``method`` sees them: after the methods ordered before it."""
        view = self.gates().view()
        order = list(self._deciding)
        if method in order:
            view.after = tuple(self._deciding[name] for name in order[:order.index(method)])
        return view

    def decided(self, method: str) -> None:
        """``method``'s build ended (done, failed or skipped): the methods after it decide."""
        event = self._deciding.get(method)
        if event is not None:
            event.set()

    def share(self) -> RunShare:
        """What every engine of this run draws on: one cache connection, ``concurrency``
        requests in flight in total, one RPM/TPM budget and header estimate per model."""
        from irforge.llm.shared import RunShare

        with self._lock:
            if self._share is None:
                self._share = RunShare(self.recipe.concurrency)
            return self._share

    def close(self) -> None:
        """Close what the run's engines shared (the cache connection)."""
        with self._lock:
            share, self._share = self._share, None
        if share is not None:
            share.close()

    def budget_left(self) -> float | None:
        """Dollars the next LLM stage may spend (None: no budget)."""
        budget = self.recipe.budget_usd
        if budget is None:
            return None
        left = budget - self.spent_usd
        if left <= 0:
            from irforge.core.errors import BudgetStopped

            raise BudgetStopped(f"the recipe's budget of ${budget:g} is spent "
                                f"(${self.spent_usd:.4f}); raise budget_usd to go on")
        return left

    @contextmanager
    def engine(self, stage: Stage, own: Any) -> Iterator[Any]:
        """One engine for an LLM stage: its model (or the recipe's), the shared cache, the
        budget left; what it spent is added to the run's total when it closes."""
        from irforge.llm import Engine

        model, base = self.recipe.llm_for(own)
        engine = Engine(model, api_base=base, budget_usd=self.budget_left(),
                        cache_path=self.out / CACHE, concurrency=self.recipe.concurrency,
                        progress=False, shared=self.share(),
                        profile=self.recipe.profile_for(own))
        try:
            with engine:
                yield engine
        finally:
            cost = float(engine.total.cost_usd)
            with self._lock:
                self.spent_usd += cost
                self.costs[stage.name] = self.costs.get(stage.name, 0.0) + cost
                self.requests[stage.name] = (self.requests.get(stage.name, 0)
                                             + int(engine.total.requests))


def run_corpus(ctx: RunContext, stage: Stage) -> str:
    """Documents -> ``corpus.jsonl`` (collect, extract, dedup, chunk, dedup passages, write)."""
    from irforge.corpus.pipeline import CorpusConfig, build
    from irforge.corpus.search import read_queries, read_url_list

    spec = ctx.recipe.corpus
    config = CorpusConfig()
    config = replace(config, chunk=replace(config.chunk, max_tokens=spec.max_tokens),
                     skip_passage_dedup=not spec.passage_dedup)
    build(ctx.out, config, read_url_list(spec.urls) if spec.urls else [],
          read_queries(spec.queries) if spec.queries else [], spec.input)
    with (ctx.out / "corpus.jsonl").open(encoding="utf-8") as handle:
        passages = sum(1 for line in handle if line.strip())
    if not passages:
        from irforge.core.errors import EmptyResultError

        raise EmptyResultError(f"{ctx.out / 'corpus.jsonl'}: the corpus stages kept no "
                               "passage; see corpus_work/ for every document and why")
    return f"{passages} passages"


def run_build(ctx: RunContext, stage: Stage) -> str:
    """One method into ``BENCH/<method>`` on the shared runner (``Method.run`` finishes it)."""
    from irforge.methods import Inputs, get_method
    from irforge.steps.runner import BuildRunner, target_line

    assert stage.method is not None
    method = get_method(stage.method)
    config = getattr(ctx.recipe.methods, stage.method)
    source = ctx.out / config.from_ if getattr(config, "from_", None) else None
    inputs = Inputs(ctx.out / "corpus.jsonl", source)
    try:
        gates = ctx.gates_for(stage.method)
        with ctx.engine(stage, config) as engine:
            runner = BuildRunner.open(engine, ctx.out / stage.method, stage.method, gates)
            built = method.run(runner, config, inputs)
    finally:
        ctx.decided(stage.method)
    target = target_line(runner.validation())
    return f"{built.kept} {method.kept} kept" + (f"; {target}" if target else "")


def run_pool(ctx: RunContext, stage: Stage) -> str:
    """Top-k of every pool retriever per query -> ``BENCH/<method>/pool/candidates.jsonl``."""
    from irforge.core.bench import Benchmark
    from irforge.corpus.pool import pool_candidates, write_pool

    folder = Benchmark(ctx.out / str(stage.method))
    spec = ctx.recipe.pool
    pool = pool_candidates(list(folder.queries()), list(folder.corpus()), list(spec.retrievers),
                           spec.k, cache_dir=folder.root / ".irforge" / "embeddings")
    target = folder.root / "pool" / "candidates.jsonl"
    written = write_pool(pool, target)
    folder.record_step("corpus.pool", {**pool.stats(), "file": str(target)})
    if not written:
        raise IrforgeError(f"{target}: the retrievers pooled no candidate (no queries or an "
                           "empty corpus?)")
    return f"{written} candidates"


def run_label(ctx: RunContext, stage: Stage) -> str:
    """LLM relevance labels for the pool (the relevance method on the shared runner)."""
    from irforge.methods import Inputs, get_method
    from irforge.steps.runner import BuildRunner

    method = get_method("relevance")
    folder = ctx.out / str(stage.method)
    with ctx.engine(stage, ctx.recipe.label) as engine:
        runner = BuildRunner.open(engine, folder, "relevance")
        built = method.run(runner, ctx.recipe.label, Inputs(
            folder / "corpus.jsonl", folder / "pool" / "candidates.jsonl"))
    return f"{built.kept} {method.kept}"


def run_eval(ctx: RunContext, stage: Stage) -> str:
    """The recipe's retrievers and metrics on one method folder -> ``<method>/eval/``."""
    from irforge.eval.report import write_outputs
    from irforge.eval.runner import evaluate_benchmark

    folder = ctx.out / str(stage.method)
    spec = ctx.recipe.eval
    results = evaluate_benchmark(folder, retrievers=list(spec.retrievers),
                                 metrics=list(spec.metrics),
                                 cache_dir=folder / ".irforge" / "embeddings")
    write_outputs(results, folder / "eval", plots=False)
    return f"{len(results.systems)} system(s) on {results.queries} queries"


Action = Callable[[RunContext, "Stage"], str]

ACTIONS: dict[str, Action] = {
    "corpus": run_corpus,
    "build": run_build,
    "pool": run_pool,
    "label": run_label,
    "eval": run_eval,
}
