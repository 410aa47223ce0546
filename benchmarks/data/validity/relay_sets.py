"""Build the ``relay_*`` labelled sets from a relay run's folders and its blind reader's verdicts.

Run once, by hand: ``python benchmarks/data/validity/relay_sets.py RELAY_DIR`` (the folder
holding ``bench-real``, ``bench-toolshed``, ``bench-real2``, ``bench-toolshed2`` and
``reader/keys``, ``reader/verdicts``; see docs/capable-models.md). Every item the reader
judged (kept and rejected alike) becomes one query with its source passage(s) as qrels and
the reader's verdict as its label; the corpus holds those passages and the run corpus's other
passages of their documents (the context the run's grounding read). The folders are committed
as data, this script records how.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: set name -> (bench folder, method, run) triples the reader judged
SETS: dict[str, list[tuple[str, str, int]]] = {
    "relay_real": [("bench-real", "intents", 1), ("bench-real", "instructions", 1),
                   ("bench-real", "logical", 1), ("bench-real2", "logical", 2)],
    "relay_toolshed": [("bench-toolshed", "intents", 1), ("bench-toolshed", "instructions", 1),
                       ("bench-toolshed", "logical", 1), ("bench-toolshed2", "logical", 2)],
}

#: the reader's invalid items, by kind: our grouping of the reader's reasons (the reasons
#: themselves are copied verbatim into labels.tsv)
INVALID_KINDS: dict[str, str] = {
    "bench-real--intents#1": "boilerplate",  # a book index's page locators
    "bench-real--intents#19": "boilerplate",
    "bench-real--intents#12": "copy",  # near-verbatim copy of the passage
    "bench-real--intents#22": "copy",
    "bench-real--intents#21": "hidden_context",  # "this music book", "the author"
    "bench-real--instructions#1": "copy",
    "bench-real--instructions#21": "copy",
    "bench-real--instructions#5": "unanswerable",  # "which pages" of a book
    "bench-real--instructions#14": "unanswerable",
    "bench-real--instructions#12": "unanswerable",  # the passage gives create flags only
    "bench-real--instructions#33": "unanswerable",
    "bench-toolshed--instructions#3": "instruction",  # the condition selects nothing
    "bench-real--logical#3": "unanswerable",
    "bench-real--logical#7": "logic",  # the logical structure is garbled or vacuous
    "bench-real--logical#9": "logic",
    "bench-real--logical#15": "logic",
    "bench-real--logical#20": "logic",
    "bench-real2--logical#4": "logic",
    "bench-real2--logical#18": "logic",
    "bench-toolshed--logical#3": "logic",
    "bench-toolshed--logical#10": "logic",
    "bench-toolshed--logical#11": "boilerplate",
    "bench-toolshed--logical#23": "logic",
    "bench-toolshed2--logical#15": "logic",
    "bench-toolshed2--logical#22": "logic",
    "bench-real--logical#8": "boilerplate",  # an author credit line
    "bench-real--logical#21": "boilerplate",
    "bench-real--logical#25": "boilerplate",
}

#: metadata a relay query carries that no validator reads and that would only date the set
DROPPED = {"generated_by", "seed", "model", "demo_grade", "target", "positive_generated",
           "task_prefix", "need", "phrasing", "source", "samples", "earlier_reasons"}


def load(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


@dataclass
class Item:
    """One judged item: where it came from, what the model wrote, what the run did with it."""

    key: str  # the reader's item number, "bench-real--intents#3"
    ident: str  # the query id (kept) or "step:item_id" (rejected)
    truth: str  # "kept" or "rejected:<reason>"
    text: str  # the query, or the model's raw answer for a rejected item
    meta: dict[str, Any] = field(default_factory=dict)


def blind_order(name: str, folder: Path) -> list[Item]:
    """The items in the reader's order (the relay's dump.py: kept, then rejected with an
    answer, sorted by a hash of name, id and text), so item numbers match the keys."""
    items = [("kept", q["_id"], q["text"], q.get("metadata", {}))
             for q in load(folder / "queries.jsonl")]
    items += [("rejected:" + str(f.get("reason")), f"{f.get('step')}:{f.get('item_id')}",
               str(f["raw_output"]), f.get("metadata", {}))
              for f in load(folder / "failures.jsonl")
              if f.get("raw_output") and str(f["raw_output"]).strip()]
    items.sort(key=lambda it: hashlib.sha256((name + str(it[1]) + it[2]).encode()).hexdigest())
    return [Item(f"{name}#{i}", ident, truth, text, dict(meta))
            for i, (truth, ident, text, meta) in enumerate(items, start=1)]


def verdicts(path: Path) -> dict[str, tuple[str, str]]:
    """Reader's item -> (valid yes/no, reason)."""
    out = {}
    for row in path.read_text(encoding="utf-8").splitlines()[1:]:
        parts = row.split("\t")
        if len(parts) >= 5:
            out[parts[0]] = (parts[1].strip().lower(), parts[4].strip())
    return out


@dataclass
class Row:
    """One query of a labelled set: text, metadata, relevant passages."""

    query_id: str
    text: str
    meta: dict[str, Any]
    positives: list[str]


class Builder:
    """Rows of one (bench, method) folder, with the run's other files at hand."""

    def __init__(self, relay: Path, bench: str, method: str, run: int) -> None:
        self.bench, self.method, self.run = relay / bench, method, run
        self.folder = self.bench / method
        self.docs = {d["_id"]: d for d in load(self.bench / "corpus.jsonl")}
        self.docs.update({d["_id"]: d for d in load(self.folder / "corpus.jsonl")})
        self.intents = {q["_id"]: q for q in load(self.bench / "intents" / "queries.jsonl")}
        self.units = load(self.folder / "queries.jsonl") if method == "instructions" else []
        recipe = (self.bench / "recipe.yaml").read_text(encoding="utf-8")
        self.sentences = int(recipe.split("passage_sentences:", 1)[1].split()[0]) \
            if "passage_sentences:" in recipe else 0
        self.qrels: dict[str, list[str]] = {}
        test = self.folder / "qrels" / "test.tsv"
        if test.is_file():
            for line in test.read_text(encoding="utf-8").splitlines()[1:]:
                query, doc, score = line.split("\t")[:3]
                if int(score) > 0:
                    self.qrels.setdefault(query, []).append(doc)

    def passage(self, doc_id: str) -> dict[str, Any]:
        """A passage by id; a logical split (``<doc>-p<k>``) the run did not write out
        (a rejected item's) is cut again from its document the way the run cut it."""
        if doc_id in self.docs:
            return self.docs[doc_id]
        parent, _, number = doc_id.rpartition("-p")
        if self.method != "logical" or parent not in self.docs:
            raise SystemExit(f"{self.folder}: passage {doc_id} is in no corpus file")
        return self._splits(parent)[int(number)]

    def _splits(self, parent: str) -> list[dict[str, Any]]:
        from irforge.core.records import Doc
        from irforge.generators.logical.selection import split_passages

        doc = self.docs[parent]
        cut = split_passages([Doc(parent, doc["text"], doc.get("title", ""),
                                  doc.get("metadata") or {})], self.sentences)
        return [{"_id": d.doc_id, "title": d.title, "text": d.text,
                 "metadata": dict(d.metadata)} for d in cut]

    def check_splits(self) -> int:
        """Cut again every split passage the run wrote: each must come out the same."""
        written = [d for d in self.docs.values() if str(d["_id"]).rpartition("-p")[0]
                   in self.docs]
        for doc in written:
            parent, _, number = str(doc["_id"]).rpartition("-p")
            again = self._splits(parent)[int(number)]
            assert again["text"] == doc["text"], doc["_id"]
        return len(written)

    def siblings(self, passages: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The run corpus's other passages of the documents ``passages`` were cut from
        (``metadata.doc_id``): the document context the run's grounding read ('Linux' of a
        Debian guide page). A passage a logical split was cut from is left out (its text is
        already there, in pieces)."""
        def document(doc: dict[str, Any]) -> str | None:
            value = (doc.get("metadata") or {}).get("doc_id")
            return str(value) if value not in (None, "") else None

        wanted = {key for doc in passages.values() if (key := document(doc)) is not None}
        parents = {str(doc_id).rpartition("-p")[0] for doc_id in passages}
        return {doc_id: doc for doc_id, doc in self.docs.items()
                if document(doc) in wanted and doc_id not in passages and doc_id not in parents
                and (doc.get("metadata") or {}).get("parent") is None}

    def prefix(self) -> str:
        return self.method if self.method != "logical" else f"logical{self.run}"

    def row(self, item: Item) -> Row:
        query_id = f"{self.prefix()}.{item.ident.split(':', 1)[-1]}"
        kept = item.truth == "kept"
        build = getattr(self, f"_{self.method}_{'kept' if kept else 'rejected'}")
        text, meta, positives = build(item)
        return Row(query_id, " ".join(text.split()), meta, positives)

    # -- intents ----------------------------------------------------------------------------
    def _intents_kept(self, item: Item) -> tuple[str, dict[str, Any], list[str]]:
        meta = {k: v for k, v in item.meta.items() if k not in DROPPED}
        return item.text, meta, [item.meta["positive_doc_id"]]

    def _intents_rejected(self, item: Item) -> tuple[str, dict[str, Any], list[str]]:
        """What the generation's validators saw: the planned item's intent, category,
        attributes and declared form, drawn again from the run's seed (0) with irforge's
        own planning code (checked against every kept query's record)."""
        from irforge.generators.intents.config import load_intents
        from irforge.generators.intents.plan import choose_form, item_rng, sample_attributes
        from irforge.generators.intents.steps import RECORDED_ATTRIBUTES
        from irforge.prompts.forms import form_metadata, query_form

        query_id = item.ident.split(":", 1)[1]
        task = next(t for t in load(self.folder / "intents" / "tasks.jsonl")
                    if t["task"] == item.meta["task"])
        spec = load_intents()[task["intent"]]
        attributes = sample_attributes(spec, item_rng(0, query_id))
        form = choose_form(spec, attributes, item_rng(0, query_id, "form"))
        source = item.meta["source_doc"]
        meta = {"intent": task["intent"], "category": task["category"], "task": task["task"],
                "attributes": attributes, "seed_doc_id": source,
                **form_metadata(query_form(form)),
                **{name: attributes[key] for key, name in RECORDED_ATTRIBUTES.items()},
                "positive_doc_id": source}
        return json.loads(item.text)["query"], meta, [source]

    # -- instructions -----------------------------------------------------------------------
    def _core_form(self, core_id: str) -> dict[str, str]:
        """The core query's own form, as a build now records it with each instructed query
        (irforge.prompts.forms.core_form_metadata of the intents query)."""
        from irforge.prompts.forms import core_form_metadata

        return core_form_metadata(self.intents[core_id].get("metadata") or {})

    def _instructions_kept(self, item: Item) -> tuple[str, dict[str, Any], list[str]]:
        meta = {k: v for k, v in item.meta.items() if k not in DROPPED}
        meta.update(self._core_form(str(meta["core_query_id"])))
        return item.text, meta, list(item.meta["positive_doc_ids"])

    def _instructions_rejected(self, item: Item) -> tuple[str, dict[str, Any], list[str]]:
        """An instructed (or reversed) query a step rejected, as the step's validators saw
        it: the written query with its core query, condition and the group's passages."""
        step, unit_id = item.ident.split(":", 1)
        answer = json.loads(item.text)
        core_id = unit_id.split("-", 1)[0]
        base = str(item.meta["source_doc"]).split("--", 1)[0]
        rewrites = sorted(d for d, doc in self.docs.items()
                          if (doc.get("metadata") or {}).get("rewritten_from") == base)
        members = [base, *rewrites]
        condition = item.meta["condition"]
        described = next(u["metadata"]["condition_description"] for u in self.units
                         if u["metadata"]["condition"] == condition)
        form = "reversed" if step.endswith("reverse") else "instructed"
        meta = {"core_query_id": core_id, "core_query": self.intents[core_id]["text"],
                "query_form": form, **self._core_form(core_id),
                "dimension": item.meta["dimension"],
                "condition": condition, "condition_description": described,
                "gold_doc_id": item.meta["source_doc"], "positive_doc_ids": members}
        return answer[f"{form}_query"], meta, members

    # -- logical ----------------------------------------------------------------------------
    def _logical_kept(self, item: Item) -> tuple[str, dict[str, Any], list[str]]:
        meta = {k: v for k, v in item.meta.items() if k not in DROPPED}
        query_id = item.ident
        return item.text, meta, self.qrels.get(query_id) or list(item.meta["source_doc_ids"])

    def _logical_rejected(self, item: Item) -> tuple[str, dict[str, Any], list[str]]:
        """A logical query a step rejected, with the metadata its validators read (the
        logical steps' query_metadata: answer, evidence with doc ids, its passages)."""
        answer = json.loads(item.text)
        ids = list(item.meta["doc_ids"])
        evidence = [{**e, "doc_id": ids[e["passage"] - 1]} for e in answer.get("evidence", [])
                    if isinstance(e, dict) and isinstance(e.get("passage"), int)
                    and 1 <= e["passage"] <= len(ids)]
        meta = {"type": item.meta["type"], "answer": answer.get("answer"),
                "triples": answer.get("triples"), "evidence": evidence,
                "source_doc_ids": ids}
        return str(answer.get("query", "")), meta, ids


def shown_passage(path: Path) -> dict[str, bool]:
    """Reader's item -> whether the reader's file showed it a source passage (a rejected
    logical item's split passage was in no corpus file, so only its quoted evidence was)."""
    blocks = path.read_text(encoding="utf-8").split("\n## ITEM ")[1:]
    return {block.split("\n", 1)[0].strip(): "\nsource passage " in block for block in blocks}


def judged(relay: Path, bench: str, method: str) -> Iterator[tuple[Item, str, str, bool]]:
    """Each judged item with the reader's verdict and whether the reader saw its passage,
    checked against the reader's key file."""
    name = f"{bench}--{method}"
    keys = {k["item"]: k for k in load(relay / "reader" / "keys" / f"{name}.jsonl")}
    said = verdicts(relay / "reader" / "verdicts" / f"{name}.tsv")
    shown = shown_passage(relay / "reader" / "blind" / f"{name}.md")
    items = blind_order(name, relay / bench / method)
    assert len(items) == len(keys), (name, len(items), len(keys))
    for item in items:
        key = keys[item.key]
        assert (key["id"], key["truth"]) == (item.ident, item.truth), (item.key, key)
        valid, reason = said[item.key]
        yield item, valid, reason, shown[item.key]


def build(relay: Path, name: str, out: Path) -> tuple[int, int]:
    rows: list[tuple[Row, str, str, Item, bool]] = []
    docs: dict[str, dict[str, Any]] = {}
    builders = []
    for bench, method, run in SETS[name]:
        builder = Builder(relay, bench, method, run)
        builders.append(builder)
        if method == "logical":
            print(f"{bench}/{method}: {builder.check_splits()} split passages cut again alike")
        for item, valid, reason, shown in judged(relay, bench, method):
            row = builder.row(item)
            kind = "valid" if valid == "yes" else INVALID_KINDS[item.key]
            rows.append((row, kind, reason, item, shown))
            for doc_id in row.positives:
                doc = builder.passage(doc_id)
                if doc_id in docs and docs[doc_id]["text"] != doc["text"]:
                    raise SystemExit(f"{name}: passage {doc_id} differs between runs")
                docs[doc_id] = doc
    assert len({r.query_id for r, *_ in rows}) == len(rows), f"{name}: repeated query ids"
    for builder in builders:
        for doc_id, doc in builder.siblings(docs).items():
            docs.setdefault(doc_id, doc)
    out.mkdir(parents=True, exist_ok=True)
    (out / "qrels").mkdir(exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for doc_id in sorted(docs):
            doc = docs[doc_id]
            record = {"_id": doc_id, "title": doc.get("title", ""), "text": doc["text"]}
            if doc.get("metadata"):
                record["metadata"] = doc["metadata"]
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as handle:
        for row, *_ in rows:
            handle.write(json.dumps({"_id": row.query_id, "text": row.text,
                                     "metadata": row.meta}, ensure_ascii=False) + "\n")
    with (out / "qrels" / "test.tsv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(["query-id", "corpus-id", "score"])
        for row, *_ in rows:
            for doc_id in row.positives:
                writer.writerow([row.query_id, doc_id, 1])
    with (out / "labels.tsv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(["query-id", "kind", "reason", "reader_item", "reader_saw_passage",
                         "run_outcome"])
        for row, kind, reason, item, shown in rows:
            outcome = "kept" if item.truth == "kept" else \
                item.truth.split(":", 1)[1].replace("rejected: ", "").strip()[:160]
            writer.writerow([row.query_id, kind, reason, item.key, "yes" if shown else "no",
                             outcome])
    valid = sum(1 for _, kind, *_ in rows if kind == "valid")
    return valid, len(rows) - valid


def main(argv: list[str]) -> None:
    if len(argv) != 1 or not (Path(argv[0]) / "reader" / "keys").is_dir():
        raise SystemExit("usage: relay_sets.py RELAY_DIR (the folder holding reader/keys)")
    relay = Path(argv[0])
    for name in SETS:
        valid, invalid = build(relay, name, HERE / name)
        print(f"{name}: {valid} valid, {invalid} invalid")


if __name__ == "__main__":
    main(sys.argv[1:])
