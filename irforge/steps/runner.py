"""The one build runner every method builds on: engine, gates, bookkeeping, writes, finish.

A method's build asks the runner to run its steps (:meth:`BuildRunner.run`, judging steps via
:meth:`BuildRunner.judge`), counts plain-code steps and later rejections on the runner's
:class:`~irforge.steps.ledger.Ledger`, and hands its records to the runner, the one writer:
:meth:`BuildRunner.write` (corpus, queries, qrels, layout files), :meth:`BuildRunner.write_logs`
(judgments, failures) and :meth:`BuildRunner.record` (the manifest entry and yields); no
generator calls a :class:`~irforge.core.bench.Benchmark` write method itself. The caller
(CLI verb or ``irforge.run``) ends with :meth:`BuildRunner.finish`: a budget or
all-calls-failed stop first (exit 4 / 5), an empty result second (exit 3), the same for every
method (docs/failures.md).

Two hooks for cross-cutting checks (docs/design.md):

- ``gate_checks``: extra query gates (validators); every query a step or an assembly keeps
  passes the built-in gates and then each of these, ``(query, (title, text)) -> reason|None``.
- ``judge_hooks``: ``(step, items) -> items`` called before every judging step (relevance
  labels, logical structure scores) sends its items; control items join here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irforge.check.query_rules import corpus_language
from irforge.core.bench import Benchmark
from irforge.core.records import Judgment, Query
from irforge.steps.gates import QueryCheck, QueryGates
from irforge.steps.ledger import Ledger
from irforge.steps.records import Records, write_records
from irforge.steps.step import Step, StepOutcome, StepYield, run_step
from irforge.steps.yields import YieldTable, require_yield

if TYPE_CHECKING:
    from irforge.llm.protocol import EngineLike
    from irforge.steps.chain import Link

#: keys of every method's manifest entry (``manifest.json`` steps.<method>)
MANIFEST_KEYS = ("method", "config", "engine", "counts", "yield", "failures",
                 "query_language", "demo_grade", "details")

JudgeHook = Callable[[Step, list[Any]], list[Any]]
Judged = Callable[[Any, Any, Judgment], Judgment]


@dataclass
class BuildRunner:
    """One method build on one benchmark folder (or one of a recipe run's method folders)."""

    engine: EngineLike
    bench: Benchmark
    method: str
    gates: QueryGates | None = None
    ledger: Ledger = field(default_factory=Ledger)
    gate_checks: list[QueryCheck] = field(default_factory=list)
    judge_hooks: list[JudgeHook] = field(default_factory=list)
    # the relevance-target depth the validators use (None: scaled to the corpus size); a
    # recipe's or build verb's ``target_k`` (>= 1: it relaxes the filter, never removes it)
    target_k: int | None = None

    @classmethod
    def open(cls, engine: EngineLike, folder: Path | str, method: str,
             gates: QueryGates | None = None, target_k: int | None = None) -> BuildRunner:
        """A runner writing into ``folder``; ``gates`` shares a recipe run's one gate index
        (through a :meth:`~QueryGates.view`, so this method's validators stay its own)."""
        runner = cls(engine, Benchmark(Path(folder)), method,
                     gates.view() if gates is not None else None, target_k=target_k)
        if gates is not None:
            runner.gate_checks = gates.checks
        return runner

    # -- gates -----------------------------------------------------------------------------
    def use_gates(self, texts: Iterable[str] = (), language: str | None = None,
                  keep: Callable[[str], bool] | None = None) -> QueryGates:
        """The build's query gates: the shared ones when given at :meth:`open`, else gates
        over the folder's existing queries (``keep(query_id)`` says which count: a re-run
        leaves out the queries it rewrites) in ``language`` or the corpus's (``texts``)."""
        if self.gates is None:
            self.gates = QueryGates.for_benchmark(
                self.bench.root, language or corpus_language(texts), keep)
            self.gates.checks = self.gate_checks
        elif language and language != self.gates.language:
            from irforge.core.errors import IrforgeError

            raise IrforgeError(f"{self.method}: language {language!r} differs from the run's "
                               f"query gates ({self.gates.language!r}, one language per run); "
                               "leave the method's language unset or build it on its own")
        return self.gates

    @property
    def language(self) -> str | None:
        return self.gates.language if self.gates is not None else None

    # -- steps -----------------------------------------------------------------------------
    def run(self, step: Step, items: Sequence[Any], judged: Judged | None = None
            ) -> dict[str, Any]:
        """Run one step through the gates; its failures, provenance, results and yield go to
        the ledger. ``judged(item, value, judgment)`` may retarget a provenance judgment."""
        gates = self.use_gates() if step.queries_of is not None else self.gates
        outcome = run_step(self.engine, step, items, gates)
        return self.keep(step, items, outcome, judged)

    def chain(self, links: Sequence[Link], items: Sequence[Any]) -> list[dict[str, Any]]:
        """Dependent steps, item by item (irforge/steps/chain.py): an item a link accepts goes
        to the next at once; each link's outcome goes to the ledger in link order. Returns
        each link's accepted values by item id."""
        from irforge.steps.chain import run_chain

        gates = self.use_gates() if any(link.gated for link in links) else self.gates
        outcomes = run_chain(self.engine, links, items, gates)
        return [self.ledger.keep(link.name, outcome)
                for link, outcome in zip(links, outcomes, strict=True)]

    def judge(self, step: Step, items: Sequence[Any], judged: Judged | None = None
              ) -> dict[str, Any]:
        """A judging step: its items pass every ``judge_hooks`` entry first, then :meth:`run`."""
        sent = list(items)
        for hook in self.judge_hooks:
            sent = hook(step, sent)
        return self.run(step, sent, judged)

    def ask(self, step: Step, items: Sequence[Any]) -> StepOutcome:
        """A judging phase whose outcomes the method folds into per-pair records itself
        (relevance strategies): items pass the judge hooks, the outcome (with each item's
        ``LLMResult``) comes back unrecorded; the method then calls :meth:`Ledger.count`."""
        sent = list(items)
        for hook in self.judge_hooks:
            sent = hook(step, sent)
        return run_step(self.engine, step, sent, self.gates)

    def keep(self, step: Step, items: Sequence[Any], outcome: StepOutcome,
             judged: Judged | None = None) -> dict[str, Any]:
        """Fold one step outcome into the ledger; returns its accepted values."""
        judgments = None
        if judged is not None:
            by_key = {step.item_id(item): item for item in items}
            judgments = [judged(by_key[j.query_id], outcome.accepted[j.query_id], j)
                         for j in outcome.judgments]
        return self.ledger.keep(step.name, outcome, judgments)

    def gate(self, name: str, queries: Sequence[Any]) -> dict[str, str]:
        """Queries assembled by code pass the same gates; returns the accepted texts by key."""
        from irforge.steps.assembled import gate_assembled

        outcome = gate_assembled(name, queries, self.use_gates())
        return self.ledger.keep(name, outcome)

    def result(self, step: str, item_id: str) -> Any:
        """The engine result (``LLMResult``) of one item of ``step``."""
        return self.ledger.result(step, item_id)

    def notes(self, query: str) -> dict[str, Any]:
        """What the validators recorded for a kept query when the gates passed it (its
        ``target`` ranks): writers merge it into the query's metadata."""
        return self.gates.notes(query) if self.gates is not None else {}

    def annotate(self, queries: Iterable[Query],
                 gated_text: Callable[[Query], str] = lambda query: query.text) -> list[Query]:
        """``queries`` with :meth:`notes` merged into their metadata; ``gated_text`` is the
        text the gates checked (an instructed query's request, say), default the query."""
        return [replace(query, metadata={**query.metadata, **self.notes(gated_text(query))})
                for query in queries]

    def validation(self) -> dict[str, Any]:
        """The validators' settings (the target depth k, corpus size, retrievers), or empty
        when no validator ran: the manifest's ``details.validation``."""
        return self.gates.validation_settings() if self.gates is not None else {}

    # -- writes ----------------------------------------------------------------------------
    def write(self, records: Records) -> dict[str, int]:
        """Write a build's records (corpus, queries, qrels, layout files); returns the rows
        written by file (:func:`~irforge.steps.records.write_records`)."""
        return write_records(self.bench, records)

    def write_logs(self, owner: str | None = None,
                   judgments: Sequence[Judgment] | None = None) -> dict[str, int]:
        """Write this run's judgments (``judgments``, default the ledger's) and failures
        through :class:`Benchmark` (redacted, no duplicate rows); older failure rows of items
        that succeeded now retire. ``owner`` (a step prefix such as ``multicon.``) replaces
        every row the method logged before. Returns ``{"judgments": n, "failures": m}``."""
        self.bench.root.mkdir(parents=True, exist_ok=True)
        logged = self.ledger.judgments if judgments is None else list(judgments)
        if owner is not None:
            failures = self.bench.replace_logs(owner, self.ledger.failures, logged)
            return {"judgments": len(logged), "failures": failures}
        written = self.bench.add_judgments(logged)
        failures = self.bench.add_failures(self.ledger.failures)
        self.bench.retire_failures(self.ledger.succeeded)
        return {"judgments": written, "failures": failures}

    def record(self, name: str, config: Mapping[str, Any], counts: Mapping[str, Any],
               details: Mapping[str, Any] | None = None, step: str | None = None
               ) -> dict[str, Any]:
        """Write the method's manifest entry, in the one layout (:data:`MANIFEST_KEYS`)."""
        validation = self.validation()
        entry = method_entry(name, config, engine_entry(self.engine), counts,
                             self.ledger.yields, len(self.ledger.failures), self.language,
                             {**(details or {}), **({"validation": validation}
                                                    if validation else {})})
        self.bench.record_step(step or self.method, entry)
        return entry

    # -- the end ---------------------------------------------------------------------------
    @property
    def yields(self) -> YieldTable:
        return self.ledger.yields

    def finish(self, kept: int, what: str) -> None:
        """End the build: a budget/deadline or all-failed stop first, an empty result second."""
        check_stop(self.engine)
        require_kept(self.ledger.yields, kept, what, f" in {self.bench.root}")


def target_line(validation: Mapping[str, Any]) -> str:
    """The console line saying which relevance-target depth the validators used."""
    target = validation.get("target")
    if not target:
        return ""
    k, size = target["k"], target["corpus_size"]
    how = "given (--target-k / target_k)" if target.get("k_given") is not None \
        else "scaled to the corpus size"
    whole = "; it covers the whole corpus, so only a positive no retriever scores is " \
        "rejected" if k >= size else ""
    return (f"target: each kept query's positive ranks in the top {k} of {size} passages "
            f"({', '.join(target['retrievers'])}; k {how}){whole}")


def engine_entry(engine: Any) -> dict[str, Any]:
    """The engine's manifest entry (model, prompts and their hashes, cost, statuses)."""
    entry_of = getattr(engine, "manifest_entry", None)
    return dict(entry_of()) if callable(entry_of) else {}


def method_entry(name: str, config: Mapping[str, Any], engine: Mapping[str, Any],
                 counts: Mapping[str, Any], yields: YieldTable, failures: int,
                 language: str | None, details: Mapping[str, Any] | None = None
                 ) -> dict[str, Any]:
    """One method's manifest entry; every method writes these keys and only these."""
    return {"method": name, "config": dict(config), "engine": dict(engine),
            "counts": dict(counts), "yield": yields.to_manifest(), "failures": failures,
            "query_language": language, "demo_grade": bool(engine.get("demo_grade")),
            "details": dict(details or {})}


def check_stop(engine: Any) -> None:
    """Raise the engine's stop (``BudgetStopped`` exit 4, ``AllCallsFailed`` exit 5)."""
    from irforge.llm.stops import stop_error

    if engine is None or not hasattr(engine, "total"):
        return
    error = stop_error(engine)
    if error is not None:
        raise error


def require_kept(table: YieldTable, kept: int, what: str, where: str = "") -> None:
    """Raise :class:`~irforge.core.errors.EmptyResultError` (exit 3) when a build kept no
    ``what``; items an early step accepted but a later one lost still leave it empty, so the
    message names the rejections of every step."""
    if kept:
        return
    nothing = YieldTable().extend(StepYield(y.step, y.attempted, 0, y.rejected, y.samples)
                                  for y in table.steps.values())
    require_yield(nothing, what, where)
