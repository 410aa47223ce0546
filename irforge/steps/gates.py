"""Quality gates every generated query passes, whatever method wrote it (docs/generation.md).

:func:`~irforge.steps.step.run_step` applies them to each step that declares ``queries_of``.
The rules are the ``check`` package's, written once: the single-query rules (length,
repetition, language, title, copy) in :mod:`irforge.check.query_rules`, the duplicate rule in
:mod:`irforge.check.duplicates`, every other validator through the registry hook
(``validate``). What lives here is the run's state: the index of accepted queries (in this
run and already in the benchmark folder) that the duplicate rule compares against, the lock
that makes check-and-admit one step, and what the validators recorded. Reasons read
``gate <name>: <detail>``; the runner prefixes ``rejected:`` so yield tables group them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from irforge.check.duplicates import DuplicateIndex, same_query
from irforge.check.query_rules import DEFAULT_LANGUAGE, normalized, single_query_reasons
from irforge.core.records import Doc

#: an extra gate: (query, (title, text) of its passage) -> a reason ``gate <name>: ...`` or None
QueryCheck = Callable[[str, tuple[str, str]], "str | None"]


class QueryValidator(Protocol):
    """The validator registry's hook (:mod:`irforge.check.generation`): reasons to reject a
    query, what the validators recorded for it (kept in its metadata) and their settings."""

    def __call__(self, query: str, source: tuple[str, str] | None,
                 metadata: Mapping[str, Any]) -> list[str]: ...

    def recorded(self) -> Mapping[str, Any]:
        """Metadata the last call's validators recorded (``{"target": {...}}``)."""
        ...

    def settings(self) -> Mapping[str, Any]:
        """The settings the validators run with (the manifest's ``validation`` entry)."""
        ...


@dataclass(frozen=True)
class Screening:
    """One item's queries after :meth:`QueryGates.screen`, per query: the single-query rules'
    and extra checks' reasons, the validators' reasons and what they recorded (None: none)."""

    own: tuple[tuple[str, ...], ...]
    validated: tuple[tuple[str, ...], ...]
    recorded: tuple[dict[str, Any] | None, ...]


@dataclass
class QueryGates:
    """The gates of one run: the expected language and the queries admitted so far.

    ``existing`` holds queries already in the benchmark (id -> text) that new ones must not
    duplicate; queries admitted by :meth:`admit` join the index, so a run never accepts two
    queries that ask the same thing. ``checks`` are extra gates (query validators) every
    query passes after the built-in ones: the hook the build runner exposes.
    """

    language: str | None = DEFAULT_LANGUAGE
    existing: Mapping[str, str] = field(default_factory=dict)
    checks: list[QueryCheck] = field(default_factory=list)
    # the validator registry's hook (validating_gates below): (query,
    # source (title, text) or None, the query's metadata) -> reasons; generation and
    # ``irforge check`` then apply the same validators
    validate: QueryValidator | None = None
    # check-then-admit is one step under this lock: methods a recipe runs in parallel share
    # the index, and two of them must not both keep the same query
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    # set when each method that decides before this one has decided its last query (a recipe
    # run's earlier methods building beside this one): :meth:`settle` waits for them, so of
    # two equal queries the earlier method's is kept whatever the timing
    after: tuple[threading.Event, ...] = field(default=(), repr=False, compare=False)
    # normalized query -> what the validators recorded when it was checked / admitted
    _checked: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)
    _notes: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)
    _index: DuplicateIndex = field(default_factory=DuplicateIndex, init=False, repr=False)
    # id(validator hook) -> (the hook, its lock): one call of a hook at a time, whatever view
    _hooks: dict[int, tuple[Any, threading.Lock]] = field(default_factory=dict, init=False,
                                                          repr=False)

    def __post_init__(self) -> None:
        for query_id, text in self.existing.items():
            self._index.add(text, f"benchmark query {query_id}")

    def view(self) -> QueryGates:
        """Gates sharing this index, lock and recorded notes but with their own validator
        hook: each method of a recipe run attaches validators over its own passages (and
        target depth) without replacing another method's, while duplicates still count
        across all of them."""
        view = QueryGates(language=self.language, checks=self.checks, validate=self.validate,
                          lock=self.lock, after=self.after)
        view.existing = self.existing
        view._checked, view._notes, view._hooks = self._checked, self._notes, self._hooks
        view._index = self._index
        return view

    def duplicate_reason(self, query: str) -> str | None:
        """Why ``query`` duplicates an admitted or existing one; None when it is new."""
        return self._index.reason(query)

    def screen(self, queries: Sequence[str], source: tuple[str, str] | None = None,
               metadata: Mapping[str, Any] | None = None) -> Screening:
        """The checks of one item's queries that no other query affects (single-query rules,
        extra checks, validators), without the run's lock: parallel methods screen at once,
        and a validator that encodes with the model holds up no other method. The validator
        hook keeps its last call's record, so each hook is called under a lock of its own;
        ``metadata`` (the query's intent, answer, conditions...) feeds the validators."""
        title, text = source or ("", "")
        own: list[tuple[str, ...]] = []
        validated: list[tuple[str, ...]] = []
        recorded: list[dict[str, Any] | None] = []
        validate = self.validate
        hook_lock = self._hook_lock(validate) if validate is not None else None
        for query in queries:
            reasons = single_query_reasons(query, title, text, self.language)
            reasons += [reason for check in self.checks
                        if (reason := check(query, (title, text))) is not None]
            own.append(tuple(reasons))
            if validate is None or hook_lock is None:
                validated.append(())
                recorded.append(None)
                continue
            with hook_lock:
                validated.append(tuple(validate(query, source, metadata or {})))
                recorded.append(dict(validate.recorded()))
        return Screening(tuple(own), tuple(validated), tuple(recorded))

    def decide(self, queries: Sequence[str], screened: Screening) -> list[str]:
        """Reasons to reject ``queries`` (one item's, screened by :meth:`screen`): their
        screening's and the duplicate rule's against the queries admitted so far. Call it and
        :meth:`admit` under :attr:`lock`, in the run's fixed order: it depends on that order."""
        reasons: list[str] = []
        for position, query in enumerate(queries):
            duplicate = self.duplicate_reason(query) or next(
                (f"gate duplicate: repeats query {earlier + 1} of the same item"
                 for earlier, other in enumerate(queries[:position])
                 if same_query(query, other)),
                None)
            reasons.extend([*screened.own[position], *([duplicate] if duplicate else []),
                            *screened.validated[position]])
            if screened.recorded[position] is not None:
                self._checked[normalized(query)] = dict(screened.recorded[position] or {})
        return reasons

    def settle(self, queries: Sequence[str], screened: Screening, origin: str) -> list[str]:
        """Decide one item's screened ``queries`` and admit them when nothing is wrong, one
        step under :attr:`lock`, once every method in :attr:`after` has decided its last
        query; the reasons to reject them (empty: admitted as ``origin``)."""
        for earlier in self.after:
            earlier.wait()
        with self.lock:
            reasons = self.decide(queries, screened)
            if not reasons:
                self.admit(queries, origin)
        return reasons

    def check(self, queries: Sequence[str], source: tuple[str, str] | None = None,
              metadata: Mapping[str, Any] | None = None) -> list[str]:
        """Reasons to reject ``queries`` (one item's queries), without admitting them:
        :meth:`screen` then :meth:`decide` (hold :attr:`lock` around this and the admit)."""
        return self.decide(queries, self.screen(queries, source, metadata))

    def _hook_lock(self, validate: QueryValidator) -> threading.Lock:
        """The lock of one validator hook (shared by every view that calls that hook)."""
        with self.lock:
            held = self._hooks.get(id(validate))
            if held is None or held[0] is not validate:
                held = self._hooks[id(validate)] = (validate, threading.Lock())
            return held[1]

    def admit(self, queries: Sequence[str], origin: str) -> None:
        """Add accepted queries to the index (``origin`` names them in later reasons); what
        the validators recorded when they checked each one is kept for :meth:`notes`."""
        for query in queries:
            self._index.add(query, origin)
            checked = self._checked.pop(normalized(query), None)
            if checked is not None:
                self._notes[normalized(query)] = checked

    def notes(self, query: str) -> dict[str, Any]:
        """What the validators recorded for an admitted query when they passed it
        (``{"target": {"rank": 2, "ranks": {"bm25": 2}, "k": 5, ...}}``; empty without the
        validator registry). Writers put it in the query's metadata: no second computation."""
        return dict(self._notes.get(normalized(query), {}))

    def validation_settings(self) -> dict[str, Any]:
        """The validator registry's settings (target depth, retrievers...), or empty."""
        return dict(self.validate.settings()) if self.validate is not None else {}

    @classmethod
    def for_benchmark(cls, root: Path | str, language: str | None = DEFAULT_LANGUAGE,
                      keep: Any = None, folders: Iterable[Path] = (),
                      validate: QueryValidator | None = None) -> QueryGates:
        """Gates that know the queries already in the benchmark folder ``root``.

        ``keep(query_id)`` says which existing queries count (default: all); a build that
        rewrites its own queries leaves those out, so a re-run does not reject itself.
        ``folders`` are more benchmark folders of the same collection (a recipe run's other
        method folders): their queries count too, named ``folder/query_id``.
        """
        from irforge.core.bench import Benchmark

        existing: dict[str, str] = {}
        for number, folder in enumerate([Path(root), *folders]):
            bench = Benchmark(folder)
            if not bench.queries_path.exists():
                continue
            prefix = "" if number == 0 else f"{folder.name}/"
            existing.update({prefix + q.query_id: q.text for q in bench.queries()
                             if number or keep is None or keep(q.query_id)})
        return cls(language=language, existing=existing, validate=validate)


def validating_gates(docs: Iterable[Doc], language: str | None = DEFAULT_LANGUAGE,
                     existing: Mapping[str, str] | None = None, target_k: int | None = None,
                     prompts_dir: Path | None = None,
                     retrievers: tuple[str, ...] = ("bm25",)) -> QueryGates:
    """Query gates that also run every registered validator against ``docs`` (the corpus)."""
    from irforge.check.generation import attach_validators

    gates = QueryGates(language=language, existing=dict(existing or {}))
    return attach_validators(gates, docs, target_k=target_k, prompts_dir=prompts_dir,
                             retrievers=retrievers)
