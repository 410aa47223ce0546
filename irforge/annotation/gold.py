"""Gold questions in annotation rounds: tasks with a known answer, mixed in with the real ones.

Each job's gold items come from its builder in :data:`GOLD_BUILDERS`
(``irforge/annotation/gold_builders.py``): for ``relevance`` the judge's control items
(``relevance/controls.jsonl``), for the other jobs cases made from the folder itself. ``annotate
push`` and ``annotate export-tasks`` shuffle them in among the sampled tasks; their data has
the same fields as any task, rendered by the same code, with the real query id they were made
from and a key of the same shape (:func:`irforge.annotation.items.item_key`), so annotators
cannot tell them apart. A round carries about ``share`` gold tasks (:func:`gold_count`:
default 15%, never more than share + 5 points, never more than the real tasks). Which keys
are gold, their expected answers and the label from which an answer counts as "yes" stay in
the folder (``annotation/gold.jsonl``), never in the task data. ``pull``/``import-tasks`` take
gold tasks out before adjudication (they never reach judgments or qrels) and score each
annotator's answers into ``annotation/<job>_gold_answers.jsonl``; ``irforge audit agreement``
prints each annotator's accuracy on them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from irforge.annotation.errors import AnnotationError
from irforge.annotation.gold_builders import GOLD_BUILDERS, GoldCase, GoldContext
from irforge.annotation.items import MISSING, AnnotationItem, item_key
from irforge.annotation.labeling import LabelingJob
from irforge.annotation.locate import Folder
from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl, write_jsonl
from irforge.generators.controls import relevant_from
from irforge.validators.control_stats import wilson_interval

GOLD_SOURCES = 25  # real items gold cases are made from per round (seeded), two cases each
DEFAULT_SHARE = 0.15  # of a round's tasks that are gold
SHARE_SLACK = 0.05  # rounding to whole tasks may exceed the share by at most this much
MAX_SHARE = 0.5


def gold_count(real: int, share: float = DEFAULT_SHARE) -> int:
    """Gold tasks to mix among ``real`` real ones: ``share`` of the round rounded to whole
    tasks, one fewer when rounding up would pass ``share + SHARE_SLACK``, never above
    ``real`` (so a round of 3 real tasks at 15% has none: one would be 25%)."""
    if not 0.0 <= share <= MAX_SHARE:
        raise AnnotationError(f"--gold-share must be between 0 and {MAX_SHARE}, got {share}")
    if real <= 0 or share == 0:
        return 0
    count = round(share * real / (1 - share))
    if count and count / (count + real) > share + SHARE_SLACK:
        count -= 1
    return min(count, real)


def gold_path(bench: Benchmark) -> Path:
    return bench.root / "annotation" / "gold.jsonl"


def answers_path(bench: Benchmark, job: LabelingJob) -> Path:
    return bench.root / "annotation" / f"{job.name}_gold_answers.jsonl"


def _as_item(case: GoldCase, job: LabelingJob, model: str) -> AnnotationItem:
    """A gold case as a task like any other: the job's fields, the real query id of the item
    it was made from, and a key of the same shape as a real task's."""
    query_id = case.source.query_id
    key = item_key(job.task, query_id, case.doc_id, salt=f"gold:{case.kind}:{case.source.key}")
    data: dict[str, Any] = {}
    for name in sorted(job.config.variables):
        value = case.fields[name] if name in case.fields else case.source.data.get(name)
        data[name] = value if value not in (None, "", []) else MISSING
    data.update({"item_key": key, "query_id": query_id, "doc_id": case.doc_id,
                 "irforge_task": job.task, "strata": dict(case.source.strata)})
    labels = dict(case.llm or {})
    return AnnotationItem(key, query_id, case.doc_id, labels, dict.fromkeys(labels, model),
                          None, dict(case.source.strata), data)


def gold_items(bench: Benchmark, job: LabelingJob, items: Sequence[AnnotationItem] = (),
               seed: int = 0) -> list[tuple[AnnotationItem, GoldCase]]:
    """The job's gold items (from at most ``GOLD_SOURCES`` of ``items``, seeded), each with
    the case it was made from (its expected answer)."""
    builder = GOLD_BUILDERS.get(job.name)
    if builder is None:
        return []
    sources = list(items)
    if len(sources) > GOLD_SOURCES:
        sources = random.Random(seed).sample(sources, GOLD_SOURCES)
    queries = {q.query_id: q for q in bench.queries()} if bench.queries_path.exists() else {}
    docs = {d.doc_id: d for d in bench.corpus()} if bench.corpus_path.exists() else {}
    context = GoldContext(bench, job, sources, Folder(queries, docs), list(bench.judgments()))
    model = str(bench.manifest().get("steps", {}).get("relevance", {}).get("engine", {})
                .get("model", "llm"))
    cases = builder.build(context)
    if any(case.llm is None and not set(case.fields) <= job.config.variables for case in cases):
        return []  # a user config that hides a field the cases change cannot show the answer
    return [(_as_item(case, job, model), case) for case in cases]


def _balanced(gold: Sequence[tuple[AnnotationItem, GoldCase]], count: int, seed: int
              ) -> list[tuple[AnnotationItem, GoldCase]]:
    """``count`` gold items, "yes" and "no" answers alternating (seeded order within each),
    so always answering one way scores about one half."""
    rng = random.Random(seed)
    yes = [pair for pair in gold if pair[1].expected]
    no = [pair for pair in gold if not pair[1].expected]
    rng.shuffle(yes)
    rng.shuffle(no)
    out: list[tuple[AnnotationItem, GoldCase]] = []
    while len(out) < count and (yes or no):
        for side in (yes, no) if len(out) % 2 == 0 else (no, yes):
            if side and len(out) < count:
                out.append(side.pop())
                break
    return out


def with_gold(bench: Benchmark, job: LabelingJob, chosen: Sequence[AnnotationItem],
              seed: int = 0, items: Sequence[AnnotationItem] = (),
              show_predictions: bool = False, share: float = DEFAULT_SHARE
              ) -> list[AnnotationItem]:
    """The sampled items plus ``gold_count(len(chosen), share)`` of the job's gold items,
    shuffled together; records which keys are gold. In a review round (predictions shown) a
    gold item without an LLM label would be the one task with no prediction, so it is left
    out; so is one that shows exactly what a sampled real task shows (a duplicate)."""
    count = gold_count(len(chosen), share)
    if not count:
        return list(chosen)
    fields = sorted(job.config.variables)

    def shown(item: AnnotationItem) -> tuple[str, ...]:
        return tuple(str(item.data.get(name)) for name in fields)

    real = {shown(item) for item in chosen}
    gold = _balanced([(item, case) for item, case in gold_items(bench, job, items or chosen,
                                                                 seed)
                      if (item.llm or not show_predictions) and shown(item) not in real],
                     count, seed)
    if not gold:
        return list(chosen)
    known = {row["item_key"]: row for _, row in iter_jsonl(gold_path(bench))} \
        if gold_path(bench).is_file() else {}
    cut = GOLD_BUILDERS[job.name].cut(job)
    for item, case in gold:
        known[item.key] = {"item_key": item.key, "task": job.task, "job": job.name,
                           "expected": case.expected, "cut": cut, "kind": case.kind,
                           "query_id": item.query_id, "doc_id": item.doc_id,
                           "made_from": case.source.key or None}
    write_jsonl(gold_path(bench), known.values())
    mixed = [*chosen, *(item for item, _ in gold)]
    random.Random(seed).shuffle(mixed)
    return mixed


def gold_keys(bench: Benchmark) -> set[str]:
    """Item keys of every gold task pushed or exported from this folder."""
    path = gold_path(bench)
    return {row["item_key"] for _, row in iter_jsonl(path)} if path.is_file() else set()


def split_gold(bench: Benchmark, tasks: Sequence[Mapping[str, Any]]
               ) -> tuple[list[Mapping[str, Any]], dict[str, dict[str, Any]],
                          list[Mapping[str, Any]]]:
    """(real tasks, {gold key: its gold.jsonl row}, gold tasks) of an export."""
    path = gold_path(bench)
    gold = {row["item_key"]: row for _, row in iter_jsonl(path)} if path.is_file() else {}
    real = [task for task in tasks if task["data"].get("item_key") not in gold]
    found = [task for task in tasks if task["data"].get("item_key") in gold]
    return real, gold, found


def score_answers(answers: Sequence[tuple[str, str, float]],
                  gold: Mapping[str, Mapping[str, Any]], top_label: int
                  ) -> list[dict[str, Any]]:
    """One row per (annotator, gold key, label): the expected answer (1 = a label at or above
    the row's ``cut``, by default half the 0..``top_label`` scale) and whether it was met."""
    out = []
    for who, key, label in answers:
        row = gold[key]
        cut = float(row.get("cut", relevant_from(top_label)))
        expected = int(row["expected"])
        out.append({"annotator": who, "item_key": key, "label": label, "expected": expected,
                    "kind": row.get("kind"), "correct": int(label >= cut) == expected})
    return out


def annotator_accuracy(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per annotator: gold answers, correct ones, accuracy and its 95% Wilson interval."""
    by_person: dict[str, list[bool]] = {}
    for row in rows:
        by_person.setdefault(str(row["annotator"]), []).append(bool(row["correct"]))
    out = []
    for person, marks in sorted(by_person.items()):
        low, high = wilson_interval(sum(marks), len(marks))
        out.append({"annotator": person, "gold": len(marks), "correct": sum(marks),
                    "accuracy": sum(marks) / len(marks), "low": low, "high": high})
    return out
