"""Generator judgments land on the folder's own (query, passage) pairs: a MultiConIR hard
negative on the passage the build wrote with that sentence, so people's labels pulled back
name real corpus ids and `audit agreement` pairs them with the generator's claim."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from irforge.annotation.files import export_tasks, import_tasks
from irforge.annotation.items import bench_items, collect_items
from irforge.annotation.labeling import get_job
from irforge.annotation.locate import Folder, locate
from irforge.audits.cli import job_judgments
from irforge.cli.app import build_app

from .built import build_for
from .helpers import full_result


def test_hard_negative_judgments_name_the_passages_the_build_wrote(tmp_path: Path) -> None:
    bench = build_for("hard_negative", tmp_path)
    queries = {query.query_id: query for query in bench.queries()}
    corpus = {doc.doc_id: doc for doc in bench.corpus()}
    folder = Folder(queries, corpus)
    logged = [j for j in bench.judgments() if j.task == "multicon.hard_negative"]
    assert {j.query_id for j in logged} == {"salt:c1", "salt:c2", "salt:c3"}  # not folder ids
    placed = {j.query_id: locate(j, folder) for j in logged}
    assert placed == {"salt:c1": ("salt-q1-inst", "salt-hn0"),
                      "salt:c2": ("salt-q2-inst", "salt-hn1"),
                      "salt:c3": ("salt-q3-inst", "salt-hn2")}
    for judgment in logged:
        query_id, doc_id = placed[judgment.query_id]
        passage = corpus[doc_id]
        # d_{i-1}: the rewritten sentence is in it, the condition's original is not, and it
        # keeps exactly the conditions before c_i
        assert judgment.metadata["output"] in passage.text
        assert judgment.metadata["original"] not in passage.text
        conditions = queries[query_id].metadata["conditions"]
        assert conditions[-1] == judgment.metadata["original"]
        assert passage.metadata["satisfied"] == len(conditions) - 1


def test_pulled_hard_negative_labels_name_real_documents(tmp_path: Path) -> None:
    bench = build_for("hard_negative", tmp_path / "built")
    job = get_job("hard_negative")
    items = {item.key: item for item in bench_items(bench, job)}
    files = export_tasks(bench, job, tmp_path / "round.json", n=3)
    tasks = json.loads(files.tasks.read_text(encoding="utf-8"))
    export = [{"id": n, "data": task["data"], "annotations": [
        {"id": n * 10 + person, "completed_by": person, "updated_at": "2026-01-01T00:00:00Z",
         "result": full_result(job, float(person == 2 and n == 1))} for person in (1, 2)]}
        for n, task in enumerate(tasks, start=1)]
    (tmp_path / "export.json").write_text(json.dumps(export), encoding="utf-8")
    import_tasks(bench, job, tmp_path / "export.json")
    corpus = {doc.doc_id: doc for doc in bench.corpus()}
    human = [j for j in bench.judgments() if j.source == "human"]
    assert len(human) == 2 * len(items)
    assert {j.doc_id for j in human} == {"salt-hn0", "salt-hn1", "salt-hn2"}
    assert all(corpus[j.doc_id].metadata["kind"] == "hard_negative" for j in human)

    done = CliRunner().invoke(build_app(), ["audit", "agreement", str(bench.root), "--task",
                                            "hard_negative", "--resamples", "20"])
    assert done.exit_code == 0, done.output
    report = json.loads((bench.root / "audits" / "agreement_hard_negative.json").read_text())
    assert report["pairs"] == len(items) == 3  # people's labels meet the generator's claims


def test_a_rewrite_of_a_rejected_unit_becomes_no_item_and_no_agreement_pair(tmp_path: Path
                                                                             ) -> None:
    bench = build_for("instruction_compliance", tmp_path)
    queries = {query.query_id: query for query in bench.queries()}
    corpus = {doc.doc_id: doc for doc in bench.corpus()}
    rewrites = [j for j in bench.judgments() if j.task == "instructions.rewrite"]
    cores = sorted({str(q.metadata["core_query_id"]) for q in queries.values()})
    assert len(cores) >= 2 and {j.query_id for j in rewrites} >= set(cores)
    # the build rejects every instructed query of one core query: its rewrites stay logged
    rejected = cores[0]
    kept = {qid: q for qid, q in queries.items() if q.metadata["core_query_id"] != rejected}
    folder = Folder(kept, corpus)
    assert all(locate(j, folder) is None for j in rewrites if j.query_id == rejected)
    job = get_job("instruction_compliance")
    items = collect_items(bench.judgments(), kept, corpus, job)
    assert items and {item.query_id for item in items} <= set(kept)
    assert {item.query_id for item in collect_items(bench.judgments(), queries, corpus, job)} \
        > {item.query_id for item in items}
    paired = list(job_judgments(bench.judgments(), "instruction_compliance", kept.values(),
                                corpus.values()))
    assert not [j for j in paired if j.task == "instruction_compliance"
                and j.query_id not in kept]
